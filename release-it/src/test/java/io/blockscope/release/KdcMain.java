package io.blockscope.release;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import org.apache.hadoop.minikdc.MiniKdc;

/**
 * A Kerberos KDC as a process of its own: Hadoop's {@code MiniKdc} (Apache Kerby inside), started
 * with one keytab per identity so that no user's process holds another's keys ({@code MiniKdc}'s
 * own {@code main} writes every principal into a single keytab).
 *
 * <pre>
 * java -cp ... io.blockscope.release.KdcMain WORKDIR KEYTABS name=principal[,principal...]...
 * </pre>
 *
 * Prints {@code KDC ready port=<port> realm=<realm> krb5.conf=<file>} once every keytab is written,
 * and serves until the process is killed. Principals without a realm get {@code @EXAMPLE.COM}.
 */
public final class KdcMain {
  private KdcMain() {}

  public static void main(String[] args) throws Exception {
    if (args.length < 3) {
      System.err.println("usage: KdcMain WORKDIR KEYTABS name=principal[,principal...]...");
      System.exit(2);
    }
    Path work = Path.of(args[0]);
    Path keytabs = Path.of(args[1]);
    Files.createDirectories(work);
    Files.createDirectories(keytabs);
    Properties conf = MiniKdc.createConf();
    conf.setProperty(MiniKdc.KDC_BIND_ADDRESS, "localhost");
    MiniKdc kdc = new MiniKdc(conf, work.toFile());
    kdc.start();
    Runtime.getRuntime().addShutdownHook(new Thread(kdc::stop, "kdc-stop"));
    for (int i = 2; i < args.length; i++) {
      String[] spec = args[i].split("=", 2);
      File keytab = keytabs.resolve(spec[0] + ".keytab").toFile();
      kdc.createPrincipal(keytab, spec[1].split(","));
    }
    // MiniKdc's krb5.conf lives in a directory it deletes on stop: keep a copy beside the keytabs
    Path krb5 = keytabs.resolve("krb5.conf");
    Files.copy(kdc.getKrb5conf().toPath(), krb5, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    System.out.println(
        "KDC ready port=" + kdc.getPort() + " realm=" + kdc.getRealm() + " krb5.conf=" + krb5);
    System.out.flush();
    Thread.currentThread().join();
  }
}
