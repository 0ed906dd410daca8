package io.blockscope.benchmarks;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

public class RegionOverheadResultsTest {
  @Rule public TemporaryFolder dir = new TemporaryFolder();

  private static final String CSV =
      """
      table,workload,mode,cpu_us_per_op,wall_us_per_op,ratio,low,high
      FAST_DIFF,GET,NOT_INSTALLED,3.300,3.400,1.0000,1.0000,1.0000
      FAST_DIFF,GET,EMPTY_OBSERVER,3.500,3.600,1.0600,1.0400,1.0800
      FAST_DIFF,GET,OFF,3.600,3.700,1.0900,1.0700,1.1100
      FAST_DIFF,GET,COUNT,3.900,4.000,1.1800,1.1500,1.2100
      FAST_DIFF,GET,TIME,4.000,4.100,1.2100,1.1800,1.2400
      """;

  @Test
  public void theCsvReadsBackAsItWasWrittenAndTheChartHasADotPerCaseAndMode() throws Exception {
    Path csv = dir.getRoot().toPath().resolve("in.csv");
    Files.writeString(csv, CSV, StandardCharsets.UTF_8);
    RegionOverheadResults r = RegionOverheadResults.fromCsv(csv);
    assertEquals(5, r.rows.size());
    assertEquals(RegionOverhead.Mode.COUNT, r.rows.get(3).mode());
    assertEquals(1.15, r.rows.get(3).low(), 0);

    Path out = dir.newFolder("out").toPath();
    r.write(out);
    assertEquals(CSV, Files.readString(out.resolve("region-overhead.csv"), StandardCharsets.UTF_8));

    String svg = Files.readString(out.resolve("region-overhead.svg"), StandardCharsets.UTF_8);
    assertTrue(svg.startsWith("<svg ") && svg.endsWith("</svg>\n"));
    // four modes against not installed, and four legend dots
    assertEquals(8, svg.split("<circle ", -1).length - 1);
    // COUNT's 1% and TIME's 5% bounds, in red
    assertEquals(2, svg.split("stroke=\"#c00\"", -1).length - 1);
    assertEquals(svg, RatioChart.svg(r.rows));
  }
}
