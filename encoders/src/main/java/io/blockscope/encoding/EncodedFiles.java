package io.blockscope.encoding;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.io.HFileLink;
import org.apache.hadoop.hbase.io.hfile.CacheConfig;
import org.apache.hadoop.hbase.io.hfile.HFile;
import org.apache.hadoop.hbase.mob.MobUtils;
import org.apache.hadoop.hbase.regionserver.StoreFileInfo;
import org.apache.hadoop.hbase.shaded.protobuf.generated.SnapshotProtos.SnapshotDescription;
import org.apache.hadoop.hbase.snapshot.SnapshotDescriptionUtils;
import org.apache.hadoop.hbase.snapshot.SnapshotReferenceUtil;
import org.apache.hadoop.hbase.util.CommonFSUtils;
import org.apache.hadoop.hbase.util.HFileArchiveUtil;

/**
 * Lists every file of a table still written in BLOCKSCOPE_V1, for the way back (docs/encoder.md):
 * the files a JVM without blockscope's encoders could not read. Run as
 *
 * <pre>
 *   hbase io.blockscope.encoding.EncodedFiles [namespace:]table
 * </pre>
 *
 * with the encoders jar on HBase's class path (in {@code lib/}, or {@code HBASE_CLASSPATH}). It
 * reads the file system under {@code hbase.rootdir}, not the cluster: it works with the table
 * disabled or deleted, and lists what the table's regions, its MOB files, its archived files and
 * its snapshots still hold:
 *
 * <ul>
 *   <li>{@code table}: store files under {@code <rootdir>/data/<ns>/<table>};
 *   <li>{@code mob}: MOB files under {@code <rootdir>/mobdir/data/<ns>/<table>};
 *   <li>{@code archive}: files under {@code <rootdir>/archive/data/<ns>/<table>}, which HBase's
 *       cleaner deletes once no snapshot or clone refers to them and their TTL has passed;
 *   <li>{@code snapshot <name>}: files a snapshot of the table refers to, wherever they lie.
 * </ul>
 *
 * References (split daughters) and HFileLinks (clones) are followed to the file they name. Each
 * file is listed once, with every place it was reached from, in path order. Output, on stdout:
 *
 * <pre>
 *   BLOCKSCOPE_V1 &lt;path&gt; (&lt;places&gt;)
 *   UNREADABLE &lt;path&gt; (&lt;places&gt;): &lt;why&gt;
 *   &lt;table&gt;: &lt;n&gt; of &lt;m&gt; files in BLOCKSCOPE_V1 (table a, mob b, archive c, snapshots d); &lt;u&gt; unreadable
 * </pre>
 *
 * Exit status: 0 when every file was read and none is in BLOCKSCOPE_V1; 1 when every file was read
 * and some are; 2 when the answer is incomplete (bad argument, nothing of the table found, a file
 * or snapshot that could not be read), with the reason on stderr.
 */
public final class EncodedFiles {
  /*
   * Design note. Where each kind of file lies and how a name is followed are HBase's:
   * CommonFSUtils.getTableDir, MobUtils.getMobTableDir, HFileArchiveUtil.getTableArchivePath,
   * SnapshotDescriptionUtils.getSnapshotsDir/readSnapshotInfo and SnapshotReferenceUtil
   * .visitReferencedFiles (each snapshot's manifest); a snapshot's file is found as
   * SnapshotReferenceUtil.verifyStoreFile finds it, through an HFileLink whose locations are the
   * table's directory, its MOB directory and the archive (HFileLink.buildFromHFileLinkPattern).
   * A file's encoding is the one its file info names (HFileInfo reads DATA_BLOCK_ENCODING
   * through HFileDataBlockEncoderImpl.createFromFileInfo when HFile.createReader opens it), so
   * BLOCKSCOPE_V1 must be registered in this JVM first. A file that moves between listing and
   * reading (a compaction, the cleaner) is followed once more through its link; if it is gone
   * it is reported unreadable, and the run must be repeated.
   */
  static final String TABLE = "table";
  static final String MOB = "mob";
  static final String ARCHIVE = "archive";
  static final String SNAPSHOT = "snapshot ";

  private final Configuration conf;
  private final FileSystem fs;
  private final Path root;
  private final TableName table;
  private final PrintStream out;

  /** Each file (as found, resolved) and the places it was reached from, in path order. */
  private final Map<Path, Set<String>> files = new TreeMap<>();

  private final List<String> problems = new ArrayList<>();
  private boolean found;

  private EncodedFiles(Configuration conf, Path root, TableName table, PrintStream out)
      throws IOException {
    this.conf = conf;
    this.fs = root.getFileSystem(conf);
    this.root = root;
    this.table = table;
    this.out = out;
  }

  public static void main(String[] args) {
    System.exit(run(HBaseConfiguration.create(), args, System.out, System.err));
  }

  /** {@link #main} without the exit: returns the exit status. */
  public static int run(Configuration conf, String[] args, PrintStream out, PrintStream err) {
    if (args.length != 1 || args[0].isEmpty() || args[0].startsWith("-")) {
      err.println("usage: hbase " + EncodedFiles.class.getName() + " [namespace:]table");
      err.println(
          "lists the table's store, MOB, archived and snapshot files written in "
              + BlockscopeEncoding.NAME
              + "; exit 0: none, 1: some, 2: could not tell");
      return 2;
    }
    TableName table;
    try {
      table = TableName.valueOf(args[0]);
    } catch (IllegalArgumentException e) {
      err.println("not a table name: '" + args[0] + "': " + e.getMessage());
      return 2;
    }
    try {
      BlockscopeEncoding.register();
    } catch (RuntimeException | LinkageError e) {
      err.println(
          "cannot register "
              + BlockscopeEncoding.NAME
              + " in this JVM, so its files "
              + "cannot be told from unreadable ones: "
              + e);
      return 2;
    }
    try {
      Path root = CommonFSUtils.getRootDir(conf);
      return new EncodedFiles(conf, root, table, out).list(err);
    } catch (IOException | RuntimeException e) {
      err.println("cannot list the files of " + table.getNameAsString() + ": " + e);
      return 2;
    }
  }

  private int list(PrintStream err) throws IOException {
    walk(CommonFSUtils.getTableDir(root, table), TABLE);
    walk(MobUtils.getMobTableDir(root, table), MOB);
    walk(HFileArchiveUtil.getTableArchivePath(root, table), ARCHIVE);
    snapshots();
    if (!found) {
      err.println(
          "nothing of table "
              + table.getNameAsString()
              + " under "
              + root
              + ": no table, MOB or archive directory and no snapshot (is the name right? "
              + "namespace:table)");
      return 2;
    }
    int encoded = 0;
    int unreadable = 0;
    int[] byPlace = new int[4];
    for (Map.Entry<Path, Set<String>> f : files.entrySet()) {
      String places = String.join(", ", f.getValue());
      String encoding;
      try {
        encoding = encoding(f.getKey());
      } catch (IOException | RuntimeException | LinkageError e) {
        unreadable++;
        out.println("UNREADABLE " + f.getKey() + " (" + places + "): " + oneLine(e));
        continue;
      }
      if (encoding.equals(BlockscopeEncoding.NAME)) {
        encoded++;
        out.println(BlockscopeEncoding.NAME + " " + f.getKey() + " (" + places + ")");
        byPlace[0] += f.getValue().contains(TABLE) ? 1 : 0;
        byPlace[1] += f.getValue().contains(MOB) ? 1 : 0;
        byPlace[2] += f.getValue().contains(ARCHIVE) ? 1 : 0;
        byPlace[3] += f.getValue().stream().anyMatch(p -> p.startsWith(SNAPSHOT)) ? 1 : 0;
      }
    }
    for (String p : problems) {
      out.println(p);
    }
    out.println(
        table.getNameAsString()
            + ": "
            + encoded
            + " of "
            + files.size()
            + " files in "
            + BlockscopeEncoding.NAME
            + " (table "
            + byPlace[0]
            + ", mob "
            + byPlace[1]
            + ", archive "
            + byPlace[2]
            + ", snapshots "
            + byPlace[3]
            + "); "
            + (unreadable + problems.size())
            + " unreadable");
    if (unreadable + problems.size() > 0) {
      err.println(
          "some files or snapshots could not be read (UNREADABLE above): the list is "
              + "incomplete");
      return 2;
    }
    return encoded > 0 ? 1 : 0;
  }

  /** The data block encoding named in the file info of the HFile at {@code p}. */
  private String encoding(Path p) throws IOException {
    try (HFile.Reader r = HFile.createReader(fs, p, CacheConfig.DISABLED, true, conf)) {
      return r.getDataBlockEncoding().name();
    } catch (FileNotFoundException moved) {
      // compacted or cleaned since it was listed: follow it once through its link
      Path again =
          resolve(p.getParent().getParent().getName(), p.getParent().getName(), p.getName());
      if (again == null || again.equals(p)) {
        throw moved;
      }
      try (HFile.Reader r = HFile.createReader(fs, again, CacheConfig.DISABLED, true, conf)) {
        return r.getDataBlockEncoding().name();
      }
    }
  }

  /** {@code <dir>/<region>/<family>/<file>}: every store file, followed to the file it names. */
  private void walk(Path dir, String place) throws IOException {
    if (!fs.exists(dir)) {
      return;
    }
    found = true;
    for (FileStatus region : children(dir)) {
      if (!region.isDirectory() || hidden(region.getPath())) {
        continue;
      }
      for (FileStatus family : children(region.getPath())) {
        if (!family.isDirectory()
            || hidden(family.getPath())
            || family.getPath().getName().equals("recovered.edits")) {
          continue;
        }
        for (FileStatus file : children(family.getPath())) {
          Path p = file.getPath();
          if (!file.isFile() || hidden(p)) {
            continue; // .links-* back references, .filelist, .tmp
          }
          add(place, p, region.getPath().getName(), family.getPath().getName(), p.getName());
        }
      }
    }
  }

  private void snapshots() throws IOException {
    Path dir = SnapshotDescriptionUtils.getSnapshotsDir(root);
    if (!fs.exists(dir)) {
      return;
    }
    for (FileStatus s : children(dir)) {
      if (!s.isDirectory() || hidden(s.getPath())) {
        continue; // .tmp: snapshots being taken
      }
      SnapshotDescription desc;
      try {
        desc = SnapshotDescriptionUtils.readSnapshotInfo(fs, s.getPath());
      } catch (IOException | RuntimeException e) {
        problems.add("UNREADABLE snapshot " + s.getPath() + ": " + oneLine(e));
        continue;
      }
      if (!table.equals(TableName.valueOf(desc.getTable()))) {
        continue;
      }
      found = true;
      String place = SNAPSHOT + desc.getName();
      try {
        SnapshotReferenceUtil.visitReferencedFiles(
            conf,
            fs,
            s.getPath(),
            desc,
            (region, family, file) ->
                add(place, null, region.getEncodedName(), family, file.getName()));
      } catch (IOException | RuntimeException e) {
        problems.add(
            "UNREADABLE snapshot "
                + desc.getName()
                + " ("
                + s.getPath()
                + "): its manifest: "
                + oneLine(e));
      }
    }
  }

  /**
   * Records the file named {@code name} in {@code region}/{@code family} of the table, reached from
   * {@code place}; {@code at} is where it was seen (null for a snapshot's entry).
   */
  private void add(String place, Path at, String region, String family, String name)
      throws IOException {
    Path file = at;
    if (at == null || HFileLink.isHFileLink(name) || StoreFileInfo.isReference(name)) {
      file = resolve(region, family, name);
      if (file == null) {
        problems.add(
            "UNREADABLE "
                + (at != null ? at : region + "/" + family + "/" + name)
                + " ("
                + place
                + "): the file it names is in none of its locations");
        return;
      }
    }
    files.computeIfAbsent(file, k -> new TreeSet<>()).add(place);
  }

  /**
   * Where the file named {@code name} of {@code region}/{@code family} is now: a reference is
   * followed to its parent's file, a link to its table's; each looked for in the table's directory,
   * the MOB directory and the archive. Null if in none.
   */
  private Path resolve(String region, String family, String name) throws IOException {
    String r = region;
    String n = name;
    if (StoreFileInfo.isReference(name)) {
      // <hfile>.<parent region>: the parent region's file (StoreFileInfo.getReferredToFile)
      Path referred = StoreFileInfo.getReferredToFile(new Path(new Path(region, family), name));
      r = referred.getParent().getParent().getName();
      n = referred.getName();
    }
    try {
      return HFileLink.build(conf, table, r, family, n).getAvailablePath(fs);
    } catch (FileNotFoundException gone) {
      return null;
    }
  }

  private FileStatus[] children(Path dir) throws IOException {
    try {
      return fs.listStatus(dir);
    } catch (FileNotFoundException gone) {
      return new FileStatus[0]; // removed since its parent was listed
    }
  }

  private static boolean hidden(Path p) {
    return p.getName().startsWith(".");
  }

  private static String oneLine(Throwable e) {
    StringBuilder b = new StringBuilder();
    for (Throwable t = e; t != null && b.length() < 1000; t = t.getCause()) {
      b.append(b.length() == 0 ? "" : " <- ").append(t);
    }
    return b.toString().replace('\n', ' ');
  }
}
