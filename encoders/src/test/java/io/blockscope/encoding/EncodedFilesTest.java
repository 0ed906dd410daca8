package io.blockscope.encoding;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.KeyValue;
import org.apache.hadoop.hbase.io.encoding.DataBlockEncoding;
import org.apache.hadoop.hbase.io.hfile.CacheConfig;
import org.apache.hadoop.hbase.io.hfile.HFile;
import org.apache.hadoop.hbase.io.hfile.HFileContextBuilder;
import org.apache.hadoop.hbase.util.Bytes;
import org.junit.Before;
import org.junit.Test;

/**
 * {@link EncodedFiles} on a root directory laid out as HBase lays it out, on the local file system:
 * store, MOB and archived files, references and links followed, each file once; and what it answers
 * to bad input. Snapshots are read on the embedded cluster ({@code EncoderWayBackIT}), whose
 * snapshot manifests HBase writes.
 */
public class EncodedFilesTest {
  private static final String R1 = "0123456789abcdef0123456789abcdef";
  private static final String R2 = "fedcba9876543210fedcba9876543210";
  private static final String MOB_REGION = "11111111111111111111111111111111";

  private Configuration conf;
  private FileSystem fs;
  private Path root;

  @Before
  public void setUp() throws IOException {
    conf = HBaseConfiguration.create();
    java.nio.file.Path dir = Files.createTempDirectory("encoded-files");
    root = new Path(dir.toUri().toString());
    conf.set("hbase.rootdir", root.toString());
    fs = root.getFileSystem(conf);
    BlockscopeEncoding.register();
  }

  private Path hfile(String relative, DataBlockEncoding encoding) throws IOException {
    Path p = new Path(root, relative);
    try (HFile.Writer w =
        HFile.getWriterFactory(conf, CacheConfig.DISABLED)
            .withPath(fs, p)
            .withFileContext(new HFileContextBuilder().withDataBlockEncoding(encoding).build())
            .create()) {
      for (int i = 0; i < 100; i++) {
        w.append(
            new KeyValue(
                Bytes.toBytes(String.format("row%04d", i)),
                Bytes.toBytes("f"),
                Bytes.toBytes("q"),
                1L,
                Bytes.toBytes("value" + i)));
      }
    }
    return p;
  }

  private Path file(String relative, String content) throws IOException {
    Path p = new Path(root, relative);
    try (FSDataOutputStream o = fs.create(p)) {
      o.write(content.getBytes(StandardCharsets.UTF_8));
    }
    return p;
  }

  private static DataBlockEncoding v1() {
    return DataBlockEncoding.valueOf(BlockscopeEncoding.NAME);
  }

  /** Exit status, stdout, stderr. */
  private String[] run(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int status =
        EncodedFiles.run(
            conf,
            args,
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    String e = err.toString(StandardCharsets.UTF_8);
    assertFalse("a stack trace: " + e, e.contains("\tat "));
    return new String[] {Integer.toString(status), out.toString(StandardCharsets.UTF_8), e};
  }

  @Test
  public void listsStoreMobAndArchivedFilesEachOnceFollowingReferences() throws IOException {
    Path store = hfile("data/default/t/" + R1 + "/f/aaaa0001", v1());
    hfile("data/default/t/" + R1 + "/f/aaaa0002", DataBlockEncoding.FAST_DIFF);
    Path mob = hfile("mobdir/data/default/t/" + MOB_REGION + "/f/bbbb0001", v1());
    // a split parent's file, archived, read by a daughter through a reference
    Path archived = hfile("archive/data/default/t/" + R2 + "/f/cccc0001", v1());
    file("data/default/t/" + R1 + "/f/cccc0001." + R2, "a reference is not read");
    // what HBase keeps beside store files: none of them is a store file
    file("data/default/t/" + R1 + "/.regioninfo", "x");
    file("data/default/t/" + R1 + "/recovered.edits/0000001", "x");
    file("data/default/t/.tabledesc/.tableinfo.0000000001", "x");
    file("archive/data/default/t/" + R2 + "/f/.links-cccc0001/" + R1 + ".c", "");

    String[] r = run("t");
    assertEquals(r[2], "1", r[0]);
    assertEquals(
        String.join(
            "\n",
            "BLOCKSCOPE_V1 " + archived + " (archive, table)",
            "BLOCKSCOPE_V1 " + store + " (table)",
            "BLOCKSCOPE_V1 " + mob + " (mob)",
            "t: 3 of 4 files in BLOCKSCOPE_V1 (table 2, mob 1, archive 1, snapshots 0); "
                + "0 unreadable",
            ""),
        r[1]);
  }

  @Test
  public void followsAClonesLinksToTheFilesOfItsSource() throws IOException {
    Path source = hfile("archive/data/ns/src/" + R1 + "/f/dddd0001", v1());
    file("data/ns/clone/" + R2 + "/f/ns=src=" + R1 + "-dddd0001", "");
    String[] r = run("ns:clone");
    assertEquals(r[2], "1", r[0]);
    assertEquals(
        "BLOCKSCOPE_V1 "
            + source
            + " (table)\nns:clone: 1 of 1 files in BLOCKSCOPE_V1 "
            + "(table 1, mob 0, archive 0, snapshots 0); 0 unreadable\n",
        r[1]);
  }

  @Test
  public void noneLeftAfterTheWayBackExitsZero() throws IOException {
    hfile("data/default/t/" + R1 + "/f/eeee0001", DataBlockEncoding.FAST_DIFF);
    hfile("archive/data/default/t/" + R1 + "/f/eeee0000", DataBlockEncoding.NONE);
    String[] r = run("default:t");
    assertEquals(r[2], "0", r[0]);
    assertEquals(
        "t: 0 of 2 files in BLOCKSCOPE_V1 (table 0, mob 0, archive 0, snapshots 0); "
            + "0 unreadable\n",
        r[1]);
  }

  @Test
  public void badArgumentsAreRefusedInOneLineWithStatusTwo() {
    for (String[] args :
        List.of(new String[0], new String[] {"a", "b"}, new String[] {"-h"}, new String[] {""})) {
      String[] r = run(args);
      assertEquals("2", r[0]);
      assertTrue(r[2], r[2].startsWith("usage: hbase io.blockscope.encoding.EncodedFiles"));
    }
    String[] r = run("bad name!");
    assertEquals("2", r[0]);
    assertTrue(r[2], r[2].startsWith("not a table name: 'bad name!': "));
    r = run("../../etc");
    assertEquals("2", r[0]);
    assertTrue(r[2], r[2].startsWith("not a table name: '../../etc': "));
    r = run("nosuchtable");
    assertEquals("2", r[0]);
    assertEquals("", r[1]);
    assertTrue(r[2], r[2].startsWith("nothing of table nosuchtable under " + root));
  }

  @Test
  public void anUnreadableFileOrADanglingLinkMakesTheAnswerIncomplete() throws IOException {
    Path v1 = hfile("data/default/t/" + R1 + "/f/ffff0001", v1());
    Path garbage = file("data/default/t/" + R1 + "/f/ffff0002", "not an hfile");
    Path dangling = file("data/default/t/" + R1 + "/f/default=gone=" + R2 + "-ffff0003", "");
    String[] r = run("t");
    assertEquals("2", r[0]);
    String[] lines = r[1].split("\n");
    assertEquals(r[1], 4, lines.length);
    assertEquals("BLOCKSCOPE_V1 " + v1 + " (table)", lines[0]);
    assertTrue(lines[1], lines[1].startsWith("UNREADABLE " + garbage + " (table): "));
    assertEquals(
        "UNREADABLE " + dangling + " (table): the file it names is in none of its " + "locations",
        lines[2]);
    assertEquals(
        "t: 1 of 2 files in BLOCKSCOPE_V1 (table 1, mob 0, archive 0, snapshots 0); "
            + "2 unreadable",
        lines[3]);
    assertTrue(r[2], r[2].startsWith("some files or snapshots could not be read"));
  }
}
