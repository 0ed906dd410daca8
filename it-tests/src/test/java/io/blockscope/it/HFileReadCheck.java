package io.blockscope.it;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.io.hfile.CacheConfig;
import org.apache.hadoop.hbase.io.hfile.HFile;
import org.apache.hadoop.hbase.io.hfile.HFileScanner;

/**
 * Reads HFiles with nothing but HBase on the class path: run by {@link EncoderPhoenixIT} in a
 * separate JVM whose class path lacks blockscope's encoders, as a server without the registration
 * would. Arguments: the file system URI, then HFile paths. Prints one line per file: {@code OK
 * <path> <encoding> <cells>} or {@code FAILED <path> <exception>}.
 */
public final class HFileReadCheck {
  private HFileReadCheck() {}

  public static void main(String[] args) throws Exception {
    Configuration conf = HBaseConfiguration.create();
    conf.set("fs.defaultFS", args[0]);
    FileSystem fs = FileSystem.get(conf);
    for (int i = 1; i < args.length; i++) {
      Path p = new Path(args[i]);
      try (HFile.Reader r = HFile.createReader(fs, p, CacheConfig.DISABLED, true, conf)) {
        long cells = 0;
        try (HFileScanner s = r.getScanner(conf, false, false)) {
          if (s.seekTo()) {
            do {
              s.getCell();
              cells++;
            } while (s.next());
          }
        }
        System.out.println("OK " + p + " " + r.getDataBlockEncoding() + " " + cells);
      } catch (Exception | LinkageError e) {
        StringBuilder why = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
          why.append(why.length() == 0 ? "" : " <- ").append(t);
        }
        System.out.println("FAILED " + p + " " + why.toString().replace('\n', ' '));
      }
    }
    System.out.flush();
  }
}
