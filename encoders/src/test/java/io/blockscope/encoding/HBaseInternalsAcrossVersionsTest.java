package io.blockscope.encoding;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotEquals;

import java.io.File;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.Test;

/**
 * What lets {@link BlockscopeEncoding#checkVersion} take HBase 2.5 as well as 2.6: the HBase
 * classes registration writes into ({@code DataBlockEncoding}) and the encoder is called through
 * (the HFile block reader's encoder check and encoded scanner, the encoder and seeker interfaces
 * and their contexts) are the same code on 2.5.13, 2.6.1 (which the encoder is built against) and
 * 2.6.4. Each class is read with {@code javap -p -c} from that version's own jars (copied by the
 * build into {@code target/hbase-versions/<version>}) and compared with constant-pool numbers left
 * out. A new HBase whose classes differ fails here, naming the class, before anyone relies on the
 * range.
 */
public class HBaseInternalsAcrossVersionsTest {
  private static final String BUILT_AGAINST = "2.6.1-hadoop3";
  private static final List<String> OTHERS = List.of("2.5.13-hadoop3", "2.6.4");

  static final List<String> CLASSES =
      List.of(
          "org.apache.hadoop.hbase.io.encoding.DataBlockEncoding",
          "org.apache.hadoop.hbase.io.encoding.DataBlockEncoder",
          "org.apache.hadoop.hbase.io.encoding.DataBlockEncoder$EncodedSeeker",
          "org.apache.hadoop.hbase.io.encoding.AbstractDataBlockEncoder",
          "org.apache.hadoop.hbase.io.encoding.HFileBlockDecodingContext",
          "org.apache.hadoop.hbase.io.encoding.HFileBlockEncodingContext",
          "org.apache.hadoop.hbase.io.encoding.HFileBlockDefaultEncodingContext",
          "org.apache.hadoop.hbase.io.hfile.HFileDataBlockEncoderImpl",
          "org.apache.hadoop.hbase.io.hfile.HFileReaderImpl$EncodedScanner");

  @Test
  public void theClassesTheEncoderReliesOnAreTheSameCodeOnEveryVersionItTakes() {
    List<String> report = new ArrayList<>();
    for (String c : CLASSES) {
      String reference = code(BUILT_AGAINST, c);
      int lines = reference.split("\n").length;
      for (String v : OTHERS) {
        assertEquals(
            c + " on HBase " + v + " is not " + BUILT_AGAINST + "'s code", reference, code(v, c));
      }
      report.add(String.format("%-70s %5d lines, same on %s", c, lines, OTHERS));
    }
    report.forEach(System.out::println);
  }

  /** The comparison sees a change: HFileReaderImpl itself differs between 2.5.13 and 2.6.1. */
  @Test
  public void aClassThatChangedBetweenTheVersionsIsToldApart() {
    String reader = "org.apache.hadoop.hbase.io.hfile.HFileReaderImpl";
    assertNotEquals(code("2.5.13-hadoop3", reader), code(BUILT_AGAINST, reader));
  }

  /** {@code javap -p -c} of {@code type} from HBase {@code version}'s jars, constant pool aside. */
  static String code(String version, String type) {
    String classPath =
        Stream.of(HBaseJars.of(version, "hbase-", 2))
            .map(File::getPath)
            .collect(Collectors.joining(File.pathSeparator));
    // "#12" and "#12, 3" are constant-pool indexes, which differ between builds of the same code;
    // the comment after each names what it points at, and stays
    return HBaseJars.javap("-p", "-c", "-classpath", classPath, type)
        .replaceAll("#\\d+(, *\\d+)?", "#")
        .replaceAll("[ \\t]+", " ");
  }
}
