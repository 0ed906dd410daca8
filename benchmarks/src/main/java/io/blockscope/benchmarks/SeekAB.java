package io.blockscope.benchmarks;

import io.blockscope.metrics.Stats;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Two builds of the encoders module against each other, on one seek call: the A/B that a change to
 * the seeker is held to. Each JVM loads both builds, each in a class loader of its own (with this
 * module and its class path), warms both up and times them in alternating slices of CPU time
 * ({@link SeekSlices}), so both see the same machine at the same moment; the ratio of a JVM is the
 * median of its rounds' B/A ratios. How the JIT compiles a build differs from JVM to JVM (the
 * ratios of one JVM agree to 1%, those of two JVMs can differ by 20%), and the build a JVM loads
 * first can come out a few percent ahead; so it runs several JVMs, loading A first in odd ones and
 * B first in even ones, and reports the geometric mean of the two orders' medians (nearest rank,
 * {@link Stats}):
 *
 * <pre>
 * java -cp benchmarks/target/classes:$(cat benchmarks/target/classpath.txt) \
 *     io.blockscope.benchmarks.SeekAB /tmp/old/encoders/target/classes encoders/target/classes \
 *     seek [jvms 6] [rounds 4] [slice ms 1000] [dataset seed] [encoding BLOCKSCOPE_V1]
 * </pre>
 */
public final class SeekAB {
  private static final String CHILD = "seekab.child";

  private SeekAB() {}

  public static void main(String[] args) throws Exception {
    if (args.length < 3) {
      System.err.println(
          "usage: SeekAB <encoder classes A> <encoder classes B> <seek|seekBefore|get> "
              + "[jvms 6] [rounds 4] [slice ms 1000] [dataset seed] [encoding BLOCKSCOPE_V1]");
      System.exit(2);
    }
    if (System.getProperty(CHILD) != null) {
      boolean bFirst = Boolean.getBoolean(CHILD + ".bFirst");
      System.out.println("ratio " + inThisJvm(args, bFirst));
      return;
    }
    int jvms = args.length > 3 ? Integer.parseInt(args[3]) : 6;
    List<Double> aFirst = new ArrayList<>();
    List<Double> bFirst = new ArrayList<>();
    for (int i = 0; i < jvms; i++) {
      boolean b = i % 2 == 1;
      double r = child(args, b);
      (b ? bFirst : aFirst).add(r);
      System.out.printf(
          Locale.ROOT, "jvm %d (%s loaded first): B/A %.3f%n", i + 1, b ? "B" : "A", r);
    }
    List<Double> all = new ArrayList<>(aFirst);
    all.addAll(bFirst);
    // the build a JVM loads first can come out ahead: each order's median, and their geometric
    // mean, which weighs both orders alike
    double a = Stats.median(aFirst);
    double b = bFirst.isEmpty() ? a : Stats.median(bFirst);
    System.out.printf(
        Locale.ROOT,
        "%s %s %s: B/A %.3f (A loaded first: median %.3f of %d JVMs; B first: %.3f of %d;"
            + " all from %.3f to %.3f)%n",
        arg(args, 6, "seed"),
        arg(args, 7, "BLOCKSCOPE_V1"),
        args[2],
        Math.sqrt(a * b),
        a,
        aFirst.size(),
        b,
        bFirst.size(),
        Stats.min(all),
        Stats.max(all));
  }

  /** Runs this class in a JVM of its own, with the same class path; its ratio. */
  private static double child(String[] args, boolean bFirst)
      throws IOException, InterruptedException {
    String java = ProcessHandle.current().info().command().orElse("java");
    List<String> cmd = new ArrayList<>();
    cmd.add(java);
    cmd.add("-Xms1g");
    cmd.add("-Xmx1g");
    cmd.add("-D" + CHILD + "=true");
    cmd.add("-D" + CHILD + ".bFirst=" + bFirst);
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(SeekAB.class.getName());
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
    String ratio = null;
    try (BufferedReader out =
        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line; (line = out.readLine()) != null; ) {
        if (line.startsWith("ratio ")) {
          ratio = line.substring(6).trim();
        }
      }
    }
    int rc = p.waitFor();
    if (rc != 0 || ratio == null) {
      throw new IllegalStateException("SeekAB's child JVM exited " + rc + " with no ratio");
    }
    return Double.parseDouble(ratio);
  }

  /** Both builds in this JVM, timed in alternating slices; the median of the rounds' B/A. */
  private static double inThisJvm(String[] args, boolean bFirst) throws Exception {
    String call = args[2];
    int rounds = args.length > 4 ? Integer.parseInt(args[4]) : 4;
    long slice = (args.length > 5 ? Long.parseLong(args[5]) : 1000) * 1_000_000L;
    String dataset = arg(args, 6, "seed");
    String encoding = arg(args, 7, "BLOCKSCOPE_V1");
    Method[] run = new Method[2];
    for (int k = 0; k < 2; k++) {
      int side = bFirst ? 1 - k : k;
      Class<?> c = Class.forName(SeekSlices.class.getName(), true, loader(Path.of(args[side])));
      c.getMethod("init", String.class, String.class).invoke(null, dataset, encoding);
      run[side] = c.getMethod("run", String.class, long.class);
    }
    for (int w = 0; w < 6; w++) {
      // warm-up: both builds compiled before either is timed
      run[w % 2].invoke(null, call, 1_000_000_000L);
    }
    double[] ratio = new double[rounds];
    for (int r = 0; r < rounds; r++) {
      double[] ns = new double[2];
      for (int k = 0; k < 2; k++) {
        int side = r % 2 == 0 ? k : 1 - k;
        long[] m = (long[]) run[side].invoke(null, call, slice);
        ns[side] = m[0] / (double) m[1];
      }
      ratio[r] = ns[1] / ns[0];
      System.err.printf(Locale.ROOT, "round %d: A %.1f ns, B %.1f ns%n", r + 1, ns[0], ns[1]);
    }
    return Stats.median(ratio);
  }

  /**
   * A class loader over the encoder classes at {@code encoders} and this JVM's class path without
   * any other copy of the encoders module; its parent is the platform loader, so that each build
   * loads its own HBase classes too.
   */
  private static ClassLoader loader(Path encoders) throws IOException {
    List<URL> urls = new ArrayList<>();
    urls.add(encoders.toUri().toURL());
    for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
      if (!entry.isEmpty()
          && !entry.contains("blockscope-encoders")
          && !entry.replace('\\', '/').endsWith("encoders/target/classes")) {
        urls.add(Path.of(entry).toUri().toURL());
      }
    }
    return new URLClassLoader(urls.toArray(new URL[0]), ClassLoader.getPlatformClassLoader());
  }

  private static String arg(String[] args, int i, String otherwise) {
    return args.length > i ? args[i] : otherwise;
  }
}
