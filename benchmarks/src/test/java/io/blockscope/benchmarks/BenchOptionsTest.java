package io.blockscope.benchmarks;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertThrows;

import java.nio.file.Paths;
import java.util.List;
import org.apache.hadoop.hbase.io.encoding.DataBlockEncoding;
import org.junit.Test;

/** The benchmark commands' options: their defaults, usage lines and refusals. */
public class BenchOptionsTest {
  private static String refusal(
      java.util.function.Function<BenchOptions, ?> options, String... args) {
    return assertThrows(IllegalArgumentException.class, () -> BenchOptions.parse(options, args))
        .getMessage();
  }

  @Test
  public void eachCommandsUsageLineIsTheOneItsJavadocGives() {
    assertEquals(
        "[--rows 20000] [--rounds 10] [--samples 3] [--sample-ms 250] [--threads 1]"
            + " [--warmup-ms 2000] [--pin yes] [--encoding FAST_DIFF] [--out DIR]",
        BenchOptions.usage(ProcessOverhead.Options::read));
    assertEquals(
        "[--rows 50000] [--rounds 12] [--samples 5] [--sample-ms 20]"
            + " [--encodings FAST_DIFF,ROW_INDEX_V1,GZ,BLOCKSCOPE_V1] [--out DIR]",
        BenchOptions.usage(RegionOverhead.Options::read));
    assertEquals(
        "[--regions 1000] [--rounds 5] [--restart yes|no] [--out DIR] [--jfr FILE]",
        BenchOptions.usage(RegionOpen.Options::read));
    assertEquals(
        "[--rows 200000] [--rounds 5] [--scans 3] [--gets 1000] [--threads 1,8]",
        BenchOptions.usage(EndToEndOverhead.Options::read));
  }

  @Test
  public void withoutOptionsEveryValueIsItsDefault() {
    ProcessOverhead.Options o = BenchOptions.parse(ProcessOverhead.Options::read);
    assertEquals(
        new ProcessOverhead.Options(
            20_000,
            10,
            3,
            250_000_000L,
            1,
            2_000_000_000L,
            true,
            DataBlockEncoding.FAST_DIFF,
            Paths.get("benchmarks/target/process-overhead")),
        o);
    RegionOpen.Options r = BenchOptions.parse(RegionOpen.Options::read);
    assertFalse(r.restart());
    assertNull(r.jfr());
  }

  @Test
  public void givenValuesReplaceTheDefaults() {
    ProcessOverhead.Options o =
        BenchOptions.parse(
            ProcessOverhead.Options::read,
            "--threads",
            "8",
            "--pin",
            "no",
            "--sample-ms",
            "100",
            "--encoding",
            "ROW_INDEX_V1",
            "--threads",
            "4");
    assertEquals(4, o.threads()); // the last of an option given twice
    assertFalse(o.pin());
    assertEquals(100_000_000L, o.sampleNs());
    assertEquals(DataBlockEncoding.ROW_INDEX_V1, o.encoding());
    RegionOverhead.Options r =
        BenchOptions.parse(RegionOverhead.Options::read, "--encodings", "GZ,NONE");
    assertEquals(List.of("GZ", "NONE"), r.encodings());
    assertEquals(
        List.of(1, 2, 4),
        BenchOptions.parse(EndToEndOverhead.Options::read, "--threads", "1,2,4").threads());
  }

  @Test
  public void aBadValueIsRefusedNamingTheOptionAndWhatItTakes() {
    assertEquals(
        "--rows must be an integer >= 1000: 999",
        refusal(ProcessOverhead.Options::read, "--rows", "999"));
    assertEquals(
        "--rounds must be an integer >= 3: three",
        refusal(ProcessOverhead.Options::read, "--rounds", "three"));
    assertEquals(
        "--pin must be yes or no: maybe", refusal(ProcessOverhead.Options::read, "--pin", "maybe"));
    assertEquals(
        "--encoding: unknown FASTDIFF (NONE, PREFIX, DIFF, FAST_DIFF, ROW_INDEX_V1)",
        refusal(ProcessOverhead.Options::read, "--encoding", "FASTDIFF"));
    assertEquals(
        "--encodings: unknown LZ4 (FAST_DIFF, ROW_INDEX_V1, GZ, BLOCKSCOPE_V1, NONE)",
        refusal(RegionOverhead.Options::read, "--encodings", "GZ,LZ4"));
    assertEquals(
        "--restart must be yes or no: true",
        refusal(RegionOpen.Options::read, "--restart", "true"));
    assertEquals(
        "--threads: counts from 1 to 256, e.g. 1,8",
        refusal(EndToEndOverhead.Options::read, "--threads", "8,512"));
    assertEquals(
        "--threads must be an integer >= 1: 0",
        refusal(EndToEndOverhead.Options::read, "--threads", "1,0"));
  }

  @Test
  public void anUnknownOptionOrAMissingValueIsRefusedAndHelpHasNoMessage() {
    assertEquals(
        "unknown option --regions", refusal(ProcessOverhead.Options::read, "--regions", "10"));
    assertEquals("--rows needs a value", refusal(ProcessOverhead.Options::read, "--rows"));
    assertEquals("", refusal(ProcessOverhead.Options::read, "--rows", "5", "--help"));
    assertEquals("", refusal(RegionOpen.Options::read, "-h"));
  }
}
