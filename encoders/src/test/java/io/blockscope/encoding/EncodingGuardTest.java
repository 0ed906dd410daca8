package io.blockscope.encoding;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.ServerMetrics;
import org.apache.hadoop.hbase.ServerMetricsBuilder;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.TableDescriptor;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.coprocessor.BaseEnvironment;
import org.apache.hadoop.hbase.coprocessor.CoprocessorHost;
import org.apache.hadoop.hbase.coprocessor.RegionCoprocessor;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.hbase.util.VersionInfo;
import org.junit.Test;

/**
 * The guard's decision, with HBase's own descriptors and server reports: which changes it checks,
 * and what a region server's report must name. The cluster side (the hooks called by the master, a
 * server started without the registrar) is {@code EncoderGuardIT}.
 */
public class EncodingGuardTest {
  private static final ServerName A = ServerName.valueOf("rs-a.example", 16020, 1L);
  private static final ServerName B = ServerName.valueOf("rs-b.example", 16020, 2L);

  private static TableDescriptor table(String... familyEncodings) {
    TableDescriptorBuilder b = TableDescriptorBuilder.newBuilder(TableName.valueOf("t"));
    for (String fe : familyEncodings) {
      String[] p = fe.split("=");
      ColumnFamilyDescriptorBuilder f =
          ColumnFamilyDescriptorBuilder.newBuilder(Bytes.toBytes(p[0]));
      if (p.length > 1) {
        // as Phoenix and the shell's METADATA pass it: a string, any case, maybe padded
        f.setValue("DATA_BLOCK_ENCODING", p[1]);
      }
      b.setColumnFamily(f.build());
    }
    return b.build();
  }

  /** A server's report as the master holds it: through the protobuf HBase sends. */
  private static ServerMetrics report(ServerName sn, List<String> coprocessors) {
    ServerMetrics built =
        ServerMetricsBuilder.newBuilder(sn).setCoprocessorNames(coprocessors).build();
    return ServerMetricsBuilder.toServerMetrics(sn, ServerMetricsBuilder.toServerLoad(built));
  }

  private static Map<ServerName, ServerMetrics> servers(ServerMetrics... reports) {
    Map<ServerName, ServerMetrics> m = new LinkedHashMap<>();
    for (ServerMetrics r : reports) {
      m.put(r.getServerName(), r);
    }
    return m;
  }

  /** What HBase's CoprocessorHost.getCoprocessors() names after loading these classes. */
  private static List<String> namesHBaseReports(Class<? extends RegionCoprocessor> c)
      throws Exception {
    CoprocessorHost<RegionCoprocessor, BaseEnvironment<RegionCoprocessor>> host =
        new CoprocessorHost<>(null) {
          @Override
          public BaseEnvironment<RegionCoprocessor> createEnvironment(
              RegionCoprocessor instance, int priority, int sequence, Configuration conf) {
            return new BaseEnvironment<>(instance, priority, sequence, conf);
          }

          @Override
          public RegionCoprocessor checkAndGetInstance(Class<?> implClass)
              throws InstantiationException, IllegalAccessException {
            try {
              return (RegionCoprocessor) implClass.getDeclaredConstructor().newInstance();
            } catch (ReflectiveOperationException e) {
              throw new InstantiationException(e.toString());
            }
          }
        };
    host.load(c, 0, new Configuration(false));
    return new ArrayList<>(host.getCoprocessors());
  }

  @Test
  public void hbaseReportsTheRegistrarBySimpleName() throws Exception {
    // if a later HBase reports full names, this fails and docs/encoder.md's limit is out of date
    assertEquals(List.of("EncodingRegistrar"), namesHBaseReports(EncodingRegistrar.class));
    // loading the registrar registers the encoding where it can (HBase 2.5 and 2.6), and on other
    // versions leaves the guard to refuse on its own
    String v = VersionInfo.getVersion();
    assertEquals(v.startsWith("2.6.") || v.startsWith("2.5."), BlockscopeEncoding.isRegistered());
  }

  @Test
  public void createIsRefusedNamingEveryServerThatLacksTheRegistrar() throws Exception {
    List<String> added = EncodingGuard.addedFamilies(null, table("f=BLOCKSCOPE_V1", "g=FAST_DIFF"));
    assertEquals(List.of("f"), added);
    Optional<String> why =
        EncodingGuard.refusal(
            "create t",
            added,
            true,
            servers(report(A, namesHBaseReports(EncodingRegistrar.class)), report(B, List.of())));
    assertTrue(why.isPresent());
    assertEquals(
        "blockscope: refusing to create t: families [f] would use BLOCKSCOPE_V1, and "
            + "these region servers do not report io.blockscope.encoding.EncodingRegistrar (set it "
            + "in hbase.coprocessor.region.classes and restart them; a server that holds no region "
            + "reports no coprocessor): ["
            + B.getServerName()
            + "]",
        why.get());
    assertEquals(
        Optional.empty(),
        EncodingGuard.refusal(
            "create t",
            added,
            true,
            servers(
                report(A, List.of("EncodingRegistrar")), report(B, List.of("EncodingRegistrar")))));
  }

  @Test
  public void refusedWithNoServerOnlineOrWithoutTheEncodingInTheMaster() {
    List<String> added = List.of("f");
    assertTrue(
        EncodingGuard.refusal("create t", added, true, Map.of())
            .get()
            .endsWith("no region server is online"));
    assertTrue(
        EncodingGuard.refusal(
                "create t", added, false, servers(report(A, List.of("EncodingRegistrar"))))
            .get()
            .endsWith("it is not registered in the master (see its log)"));
  }

  @Test
  public void issue14Defect8_anAlterKeepingTheEncodingWasRefusedWhileAServerHeldNoRegion() {
    // A TTL change, or the coprocessor Phoenix adds for an index, on a BLOCKSCOPE_V1 table: the
    // guard refused it because server B, holding no region, reported no coprocessor.
    TableDescriptor current = table("f=BLOCKSCOPE_V1", "g=FAST_DIFF");
    TableDescriptor next =
        TableDescriptorBuilder.newBuilder(current)
            .modifyColumnFamily(
                ColumnFamilyDescriptorBuilder.newBuilder(
                        current.getColumnFamily(Bytes.toBytes("f")))
                    .setTimeToLive(3600)
                    .build())
            .setValue("PHOENIX_INDEX_HINT", "added")
            .build();
    Map<ServerName, ServerMetrics> oneEmpty =
        servers(report(A, List.of("EncodingRegistrar")), report(B, List.of()));
    assertEquals(List.of(), EncodingGuard.addedFamilies(current, next));
    assertEquals(
        Optional.empty(),
        EncodingGuard.refusal(
            "alter t", EncodingGuard.addedFamilies(current, next), true, oneEmpty));
    // the same encoding spelled as Phoenix or a shell user may give it
    assertEquals(
        List.of(), EncodingGuard.addedFamilies(current, table("f= blockscope_v1 ", "g=FAST_DIFF")));
  }

  @Test
  public void anAlterThatIntroducesTheEncodingIsStillChecked() {
    TableDescriptor current = table("f=BLOCKSCOPE_V1", "g=FAST_DIFF");
    Map<ServerName, ServerMetrics> oneEmpty =
        servers(report(A, List.of("EncodingRegistrar")), report(B, List.of()));
    // another family switched to it, and a new family with it
    List<String> switched =
        EncodingGuard.addedFamilies(current, table("f=BLOCKSCOPE_V1", "g=BLOCKSCOPE_V1"));
    List<String> added =
        EncodingGuard.addedFamilies(
            current, table("f=BLOCKSCOPE_V1", "g=FAST_DIFF", "h=BLOCKSCOPE_V1"));
    assertEquals(List.of("g"), switched);
    assertEquals(List.of("h"), added);
    assertTrue(EncodingGuard.refusal("alter t", switched, true, oneEmpty).isPresent());
    assertTrue(EncodingGuard.refusal("alter t", added, true, oneEmpty).isPresent());
    // leaving it, or dropping the family, is never refused
    assertEquals(List.of(), EncodingGuard.addedFamilies(current, table("f=FAST_DIFF", "g")));
    assertEquals(List.of(), EncodingGuard.addedFamilies(current, table("g=FAST_DIFF")));
  }

  @Test
  public void aRestoreIsCheckedAgainstTheTablesCurrentFamilies() {
    // restoring a snapshot taken before the way back puts BLOCKSCOPE_V1 back on f
    TableDescriptor snapshot = table("f=BLOCKSCOPE_V1");
    assertEquals(List.of("f"), EncodingGuard.addedFamilies(table("f=FAST_DIFF"), snapshot));
    assertEquals(List.of(), EncodingGuard.addedFamilies(table("f=BLOCKSCOPE_V1"), snapshot));
    // a clone is a new table: every family counts
    assertEquals(List.of("f"), EncodingGuard.addedFamilies(null, snapshot));
  }

  @Test
  public void aClassOfTheSameSimpleNameInAnyPackagePasses_aLimitOfTheServersReport()
      throws Exception {
    List<String> impostor =
        namesHBaseReports(io.blockscope.encoding.impostor.EncodingRegistrar.class);
    assertEquals(namesHBaseReports(EncodingRegistrar.class), impostor);
    assertFalse(
        EncodingGuard.refusal("create t", List.of("f"), true, servers(report(A, impostor)))
            .isPresent());
    // a name that only contains it does not pass
    assertTrue(
        EncodingGuard.refusal(
                "create t",
                List.of("f"),
                true,
                servers(report(A, List.of("MyEncodingRegistrar", "EncodingRegistrar2"))))
            .isPresent());
  }
}
