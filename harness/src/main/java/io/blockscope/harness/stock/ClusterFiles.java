package io.blockscope.harness.stock;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.BlockLocation;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RemoteIterator;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.io.hfile.CacheConfig;
import org.apache.hadoop.hbase.io.hfile.FixedFileTrailer;
import org.apache.hadoop.hbase.io.hfile.HFile;
import org.apache.hadoop.hbase.io.hfile.HFileBlock;

/**
 * A {@link StockCluster}'s store files as its file system holds them: what a cold read of them must
 * cost, read by HBase's own block reader in the test's JVM, and, on HDFS, what HDFS's own services
 * say of them (the NameNode's listing and block locations, the DataNodes' read counters on their
 * {@code /jmx}). Which regions and families a table has is the master's answer; nothing here asks
 * blockscope or the region servers what a read cost.
 */
public final class ClusterFiles {
  /**
   * The data section of store files as HBase's block reader walks it: its data blocks, and their
   * on-disk sizes (header, data and checksums) summed: what a cold scan of the files reads.
   */
  public record DataSection(long blocks, long bytes) {
    DataSection plus(DataSection o) {
      return new DataSection(blocks + o.blocks, bytes + o.bytes);
    }
  }

  private final StockCluster cluster;

  ClusterFiles(StockCluster cluster) {
    this.cluster = cluster;
  }

  private FileSystem fileSystem() throws IOException {
    return new Path(cluster.rootDir()).getFileSystem(cluster.clientConf());
  }

  /**
   * A table's store files, once each of its regions' families holds exactly one (waits up to 60 s
   * for a major compaction's replaced files to be archived).
   */
  public List<Path> storeFiles(TableName t) throws Exception {
    FileSystem fs = fileSystem();
    Path dir = tableDir(t);
    int expected;
    try (Admin admin = cluster.admin()) {
      expected = admin.getRegions(t).size() * admin.getDescriptor(t).getColumnFamilyCount();
    }
    List<Path> files = new ArrayList<>();
    cluster.await(
        t + " down to one store file per region and family (" + expected + ") in " + dir,
        60,
        () -> {
          try {
            files.clear();
            RemoteIterator<LocatedFileStatus> it = fs.listFiles(dir, true);
            while (it.hasNext()) {
              Path p = it.next().getPath();
              // <region>/<family>/<file>: not .regioninfo, .tmp or recovered edits
              if (p.getParent().getParent().getParent().equals(dir)
                  && !p.getParent().getName().startsWith(".")
                  && !p.getParent().getName().equals("recovered.edits")
                  && !p.getName().startsWith(".")) {
                files.add(p);
              }
            }
            return files.size() == expected;
          } catch (IOException e) {
            return false;
          }
        });
    return files;
  }

  /** The store files of a one-region table's family; fails unless there is exactly one. */
  public List<Path> storeFiles(TableName t, String family) throws IOException {
    Path dir = new Path(tableDir(t), cluster.regionOf(t).getEncodedName() + "/" + family);
    List<Path> files = new ArrayList<>();
    for (org.apache.hadoop.fs.FileStatus f : fileSystem().listStatus(dir)) {
      if (!f.isDirectory() && !f.getPath().getName().startsWith(".")) {
        files.add(f.getPath());
      }
    }
    if (files.size() != 1) {
      throw new AssertionError(files.size() + " store files in " + dir + ", not 1");
    }
    return files;
  }

  /** The data section of a one-region table's one store file in {@code family}. */
  public DataSection dataSection(TableName t, String family) throws IOException {
    return dataSection(storeFiles(t, family));
  }

  /**
   * The cells of a table's store files as their trailers count them, once there is one file per
   * region and family (see {@link #storeFiles(TableName)}).
   */
  public long cells(TableName t) throws Exception {
    FileSystem fs = fileSystem();
    long cells = 0;
    for (Path p : storeFiles(t)) {
      try (FSDataInputStream in = fs.open(p)) {
        cells += FixedFileTrailer.readFromStream(in, fs.getFileStatus(p).getLen()).getEntryCount();
      }
    }
    return cells;
  }

  /** A table's directory under the cluster's root directory. */
  private Path tableDir(TableName t) {
    return new Path(
        new Path(cluster.rootDir()),
        "data/" + t.getNamespaceAsString() + "/" + t.getQualifierAsString());
  }

  /** The data sections of a table's store files, once there is one per region and family. */
  public DataSection dataSection(TableName t) throws Exception {
    return dataSection(storeFiles(t));
  }

  /** The data sections of {@code files} summed (see {@link #dataSection(Path)}). */
  public DataSection dataSection(List<Path> files) throws IOException {
    DataSection sum = new DataSection(0, 0);
    for (Path p : files) {
      sum = sum.plus(dataSection(p));
    }
    return sum;
  }

  /**
   * One store file's data section, walked block by block from offset 0 to the trailer's
   * load-on-open offset with HBase's own reader ({@code HFile.Reader.readBlock}, uncached), and
   * checked against the trailer: a file whose walk finds another count of data blocks than its
   * one-level index holds fails here.
   */
  public DataSection dataSection(Path file) throws IOException {
    Configuration conf = cluster.clientConf();
    FileSystem fs = file.getFileSystem(conf);
    try (HFile.Reader r = HFile.createReader(fs, file, CacheConfig.DISABLED, true, conf)) {
      FixedFileTrailer trailer = r.getTrailer();
      long blocks = 0;
      long bytes = 0;
      for (long at = 0; at < trailer.getLoadOnOpenDataOffset(); ) {
        HFileBlock b = r.readBlock(at, -1, false, true, false, false, null, null);
        try {
          if (b.getBlockType().isData()) {
            blocks++;
            bytes += b.getOnDiskSizeWithHeader();
          }
          at += b.getOnDiskSizeWithHeader();
        } finally {
          b.release();
        }
      }
      if (trailer.getNumDataIndexLevels() != 1) {
        throw new AssertionError("a multi-level index in " + file);
      }
      if (blocks != trailer.getDataIndexCount()) {
        throw new AssertionError(
            file
                + ": "
                + blocks
                + " data blocks walked, "
                + trailer.getDataIndexCount()
                + " indexed");
      }
      return new DataSection(blocks, bytes);
    }
  }

  /**
   * The files in a directory of HDFS as the NameNode lists them (its client protocol's listing,
   * asked through HDFS's own client at the NameNode's address): name to length. Fails on a cluster
   * without HDFS.
   */
  public Map<String, Long> nameNodeListing(String dir) throws IOException {
    Map<String, Long> files = new TreeMap<>();
    for (org.apache.hadoop.fs.FileStatus f : hdfs().listStatus(new Path(dir))) {
      if (f.isFile()) {
        files.put(f.getPath().getName(), f.getLen());
      }
    }
    return files;
  }

  /**
   * Where the NameNode says a file's blocks are: the transfer addresses of the DataNodes holding
   * their replicas.
   */
  public Set<String> blockLocations(Path file) throws IOException {
    FileSystem dfs = hdfs();
    Set<String> at = new TreeSet<>();
    for (BlockLocation b : dfs.getFileBlockLocations(file, 0, dfs.getFileStatus(file).getLen())) {
      at.addAll(List.of(b.getNames()));
    }
    return at;
  }

  /** The transfer addresses ({@code host:port}) of the cluster's DataNodes. */
  public List<String> dataNodeAddresses() {
    return cluster.dataNodeAddresses();
  }

  /** The cluster's file system, which must be HDFS's client ({@code hdfs} scheme). */
  private FileSystem hdfs() throws IOException {
    FileSystem fs = fileSystem();
    if (!"hdfs".equals(fs.getScheme())) {
      throw new AssertionError(cluster.rootDir() + " is not on HDFS: " + fs.getClass());
    }
    return fs;
  }

  /**
   * The bytes the cluster's DataNodes have sent to readers, summed over them: each one's {@code
   * DataNodeActivity} {@code BytesRead} on its own {@code /jmx}. Hadoop's JMX view of a metrics
   * source is refreshed at most once per metrics period (10 s by default), so a reading can be that
   * old.
   */
  public long dataNodesBytesRead() throws Exception {
    long sum = 0;
    for (int port : cluster.dataNodeHttpPorts()) {
      String body =
          http11Get(
              "http://127.0.0.1:"
                  + port
                  + "/jmx?qry=Hadoop:service=DataNode,name=DataNodeActivity-%2A");
      Matcher m = Pattern.compile("\"BytesRead\"\\s*:\\s*(\\d+)").matcher(body);
      if (!m.find()) {
        throw new AssertionError("no BytesRead on DataNode :" + port + ": " + body);
      }
      sum += Long.parseLong(m.group(1));
    }
    return sum;
  }

  /**
   * An HTTP/1.1 GET with no upgrade offer: a DataNode's HTTP front end (Netty, passing requests on
   * to its Jetty) answers 400 to the HTTP/2 upgrade Java's {@code HttpClient} offers.
   */
  private static String http11Get(String url) throws IOException {
    java.net.HttpURLConnection c =
        (java.net.HttpURLConnection) java.net.URI.create(url).toURL().openConnection();
    c.setConnectTimeout(10_000);
    c.setReadTimeout(30_000);
    try {
      int status = c.getResponseCode();
      java.io.InputStream body = status == 200 ? c.getInputStream() : c.getErrorStream();
      String text =
          body == null
              ? ""
              : new String(body.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
      if (status != 200) {
        throw new IOException(url + ": " + status + " " + text);
      }
      return text;
    } finally {
      c.disconnect();
    }
  }

  /**
   * The DataNodes' {@link #dataNodesBytesRead} once it is current: read again after a metrics
   * period until two readings 11 s apart agree, so that no read before this call is left to show up
   * later.
   */
  public long dataNodesBytesReadSettled() throws Exception {
    long[] last = {dataNodesBytesRead(), -1};
    // polled once per metrics period (and a second): settled when a reading repeats the one before
    cluster.await(
        "the DataNodes' BytesRead settled",
        80,
        11_000,
        () -> {
          try {
            long now = dataNodesBytesRead();
            boolean settled = now == last[0] && last[1] >= 0;
            last[1] = last[0];
            last[0] = now;
            return settled;
          } catch (Exception e) {
            return false;
          }
        });
    return last[0];
  }
}
