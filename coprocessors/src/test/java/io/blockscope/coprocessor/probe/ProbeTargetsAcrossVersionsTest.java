package io.blockscope.coprocessor.probe;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Executable;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import net.bytebuddy.jar.asm.ClassReader;
import net.bytebuddy.jar.asm.ClassVisitor;
import net.bytebuddy.jar.asm.FieldVisitor;
import net.bytebuddy.jar.asm.MethodVisitor;
import net.bytebuddy.jar.asm.Opcodes;
import org.junit.Test;

/**
 * The probe target table per HBase version: every method {@link ProbeTargets#PROBES} weaves,
 * checked by the installer's own {@link ProbeChecks#verify} against each version's hbase-server and
 * hbase-common jars (copied by the build into {@code target/hbase-versions/<version>}), each loaded
 * in a class loader of its own that takes HBase's classes from that version's jars first. A target
 * whose class is not in a version's jars is reported "not checked", never taken from the HBase this
 * build compiles against. The table is printed and written to {@code target/probe-targets.txt};
 * docs/compatibility.md quotes it.
 */
public class ProbeTargetsAcrossVersionsTest {
  private static final List<String> VERSIONS = HBaseVersions.VERSIONS;

  private static HBaseVersions.Loader loader(String version) throws IOException {
    return HBaseVersions.loader(version, ProbeTargetsAcrossVersionsTest.class.getClassLoader());
  }

  /** What verifying one target on one version gave. */
  private static String check(ProbeTargets.Target t, HBaseVersions.Loader loader) {
    try {
      Class<?> type = Class.forName(t.type(), false, loader);
      if (type.getClassLoader() != loader) {
        return "not checked";
      }
      Executable m = ProbeChecks.verify(t, loader);
      String ok = "ok";
      for (Class<?> p : m.getParameterTypes()) {
        if (p.getName().startsWith("org.apache.hadoop.hbase.") && p.getClassLoader() != loader) {
          // the method is this version's; a parameter's class is not in its jars, so it is matched
          // by name, as the weave's matcher does
          ok = "ok by name";
        }
      }
      return ok + (t.params().length == 0 ? "" : " " + simpleNames(m.getParameterTypes()));
    } catch (ReflectiveOperationException | LinkageError e) {
      return "MISSING " + e;
    }
  }

  private static String simpleNames(Class<?>[] types) {
    List<String> names = new ArrayList<>();
    for (Class<?> c : types) {
      names.add(c.getSimpleName());
    }
    return "(" + String.join(", ", names) + ")";
  }

  private static int header(HBaseVersions.Loader loader, String field) throws Exception {
    Class<?> h = Class.forName("org.apache.hadoop.hbase.io.hfile.HFileBlock$Header", false, loader);
    Field f = h.getDeclaredField(field);
    f.setAccessible(true);
    return f.getInt(null);
  }

  /**
   * A class's own fields and methods ({@code field NAME DESC}, {@code method NAME DESC}), read from
   * its bytecode: no class of hbase-common need be loaded (3.0.0 has none here).
   */
  private static Set<String> members(HBaseVersions.Loader loader, String internalName)
      throws IOException {
    Set<String> members = new TreeSet<>();
    try (InputStream in = loader.findResource(internalName + ".class").openStream()) {
      new ClassReader(in)
          .accept(
              new ClassVisitor(Opcodes.ASM9) {
                @Override
                public FieldVisitor visitField(
                    int access, String name, String desc, String signature, Object value) {
                  members.add("field " + name + " " + desc);
                  return null;
                }

                @Override
                public MethodVisitor visitMethod(
                    int access, String name, String desc, String signature, String[] exceptions) {
                  members.add("method " + name + " " + desc);
                  return null;
                }
              },
              ClassReader.SKIP_CODE);
    }
    return members;
  }

  /**
   * The EncodedSeeker methods HBase's HFile reader calls, as descriptors, read from a version's
   * {@code HFileReaderImpl$EncodedScanner} bytecode: the interface the seekers the decode probe
   * weaves implement on that version.
   */
  private static Set<String> seekerCalls(HBaseVersions.Loader loader) throws IOException {
    Set<String> calls = new TreeSet<>();
    try (InputStream in =
        loader
            .findResource("org/apache/hadoop/hbase/io/hfile/HFileReaderImpl$EncodedScanner.class")
            .openStream()) {
      new ClassReader(in)
          .accept(
              new ClassVisitor(Opcodes.ASM9) {
                @Override
                public MethodVisitor visitMethod(
                    int access, String name, String desc, String signature, String[] exceptions) {
                  return new MethodVisitor(Opcodes.ASM9) {
                    @Override
                    public void visitMethodInsn(
                        int op, String owner, String method, String d, boolean itf) {
                      if (owner.endsWith("DataBlockEncoder$EncodedSeeker")) {
                        calls.add(method + d);
                      }
                    }
                  };
                }
              },
              ClassReader.SKIP_DEBUG);
    }
    return calls;
  }

  @Test
  public void everyTargetResolvesOnEveryVersionOfTheMatrix() throws Exception {
    Map<String, Map<String, String>> table = new LinkedHashMap<>();
    Map<String, Set<String>> calls = new LinkedHashMap<>();
    for (String version : VERSIONS) {
      try (HBaseVersions.Loader loader = loader(version)) {
        for (int p = 0; p < ProbeBridge.N_PROBES; p++) {
          for (ProbeTargets.Target t : ProbeTargets.PROBES.get(p)) {
            String row =
                ProbeBridge.PROBE_NAMES[p]
                    + "  "
                    + t.type().substring(t.type().lastIndexOf('.') + 1)
                    + "."
                    + t.method();
            String result;
            if (t.type().equals(ProbeTargets.BLOCKSCOPE_SEEKER)) {
              result = "encoder jar: registers on 2.6 only";
            } else {
              result = check(t, loader);
              if (ProbeTargets.OPTIONAL_TYPES.contains(t.type()) && !result.startsWith("ok")) {
                result = "optional, woven where the server has it: " + result;
              }
            }
            table.computeIfAbsent(row, k -> new LinkedHashMap<>()).put(version, result);
          }
        }
        // the header offsets the checksum probe reads a block's checksum type and size at
        assertEquals(
            version,
            List.of(
                ProbeBridge.HEADER_CHECKSUM_TYPE,
                ProbeBridge.HEADER_BYTES_PER_CHECKSUM,
                ProbeBridge.HEADER_ON_DISK_DATA_SIZE_WITH_HEADER),
            List.of(
                header(loader, "CHECKSUM_TYPE_INDEX"),
                header(loader, "BYTES_PER_CHECKSUM_INDEX"),
                header(loader, "ON_DISK_DATA_SIZE_WITH_HEADER_INDEX")));
        calls.put(version, seekerCalls(loader));
        // what the cacheReuse probe reads of a BucketCache by reflection (ProbeBridge's tracker of
        // bucket entries' hits): the allocator's bucket sizes, and an entry's offset
        String bucket = "org/apache/hadoop/hbase/io/hfile/bucket/";
        assertTrue(
            version,
            members(loader, bucket + "BucketCache")
                .contains("field bucketAllocator L" + bucket + "BucketAllocator;"));
        assertTrue(
            version, members(loader, bucket + "BucketAllocator").contains("field bucketSizes [I"));
        assertTrue(version, members(loader, bucket + "BucketEntry").contains("method offset ()J"));
      }
    }
    StringBuilder out = new StringBuilder("probe  target");
    for (String v : VERSIONS) {
      out.append("  |  ").append(v);
    }
    out.append('\n');
    table.forEach(
        (row, results) -> {
          out.append(row);
          for (String v : VERSIONS) {
            out.append("  |  ").append(results.get(v));
          }
          out.append('\n');
        });
    calls.forEach(
        (v, c) ->
            out.append("HFileReaderImpl$EncodedScanner on ")
                .append(v)
                .append(" calls EncodedSeeker.")
                .append(c)
                .append('\n'));
    // the counts docs/compatibility.md gives, per version: targets found, found only by name,
    // not checkable (3.0.0's hbase-common is not served), the encoder's own, of all rows
    Map<String, String> counts = new LinkedHashMap<>();
    for (String v : VERSIONS) {
      long ok = table.values().stream().filter(r -> r.get(v).startsWith("ok")).count();
      long byName = table.values().stream().filter(r -> r.get(v).startsWith("ok by name")).count();
      long notChecked = table.values().stream().filter(r -> r.get(v).equals("not checked")).count();
      long encoder =
          table.values().stream().filter(r -> r.get(v).startsWith("encoder jar")).count();
      String c =
          ok
              + " ok ("
              + byName
              + " by name), "
              + notChecked
              + " not checked, "
              + encoder
              + " encoder, of "
              + table.size();
      counts.put(v, c);
      out.append("counts on ").append(v).append(": ").append(c).append('\n');
    }
    assertEquals(
        "the counts docs/compatibility.md states",
        Map.of(
            "2.5.13-hadoop3", "30 ok (0 by name), 0 not checked, 4 encoder, of 34",
            "2.6.1-hadoop3", "30 ok (0 by name), 0 not checked, 4 encoder, of 34",
            "2.6.4", "30 ok (0 by name), 0 not checked, 4 encoder, of 34",
            "3.0.0-beta-1", "29 ok (0 by name), 0 not checked, 4 encoder, of 34",
            "3.0.0", "15 ok (4 by name), 14 not checked, 4 encoder, of 34"),
        counts);
    System.out.print(out);
    Files.write(
        Path.of("target", "probe-targets.txt"), out.toString().getBytes(StandardCharsets.UTF_8));

    for (Map.Entry<String, Map<String, String>> e : table.entrySet()) {
      for (String v : VERSIONS) {
        String r = e.getValue().get(v);
        if (r.startsWith("encoder jar") || r.startsWith("optional")) {
          continue;
        }
        boolean common = isInHBaseCommon(e.getKey());
        if (v.equals("3.0.0") && common) {
          // 3.0.0's hbase-common (the encoders, ByteBuff) is not in the reachable repository
          assertEquals(e.getKey() + " on " + v, "not checked", r);
        } else {
          assertTrue(e.getKey() + " on " + v + ": " + r, r.startsWith("ok"));
        }
      }
    }
    // where 3.0.0 cannot be checked class by class, its reader's calls show the seeker interface:
    // the same methods, with the sought key an ExtendedCell, which the decode probe's CELL
    // alternative takes
    for (String v : VERSIONS) {
      String key = v.startsWith("3.0.0") && !v.equals("3.0.0-beta-1") ? "ExtendedCell" : "Cell";
      assertTrue(
          v + ": " + calls.get(v),
          calls
              .get(v)
              .containsAll(
                  List.of(
                      "next()Z",
                      "rewind()V",
                      "setCurrentBuffer(Lorg/apache/hadoop/hbase/nio/ByteBuff;)V",
                      "seekToKeyInBlock(Lorg/apache/hadoop/hbase/" + key + ";Z)I")));
      assertTrue(
          ProbeTargets.CELL,
          Arrays.asList(ProbeTargets.CELL.split("\\|")).contains("org.apache.hadoop.hbase." + key));
    }
  }

  /** Targets in hbase-common: the encoders and their decoding context. */
  private static boolean isInHBaseCommon(String row) {
    return row.contains("Seeker")
        || row.contains("Encoder")
        || row.contains("DecodingContext")
        || row.contains("RowIndexSeekerV1");
  }
}
