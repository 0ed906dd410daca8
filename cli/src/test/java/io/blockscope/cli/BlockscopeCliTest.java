package io.blockscope.cli;

import static org.junit.Assert.assertEquals;

import java.io.IOException;
import java.lang.reflect.UndeclaredThrowableException;
import org.junit.Test;

public class BlockscopeCliTest {
  @Test
  public void aWrapperIsNamedByItsCauses() {
    Throwable e =
        new UndeclaredThrowableException(
            new IOException("table scratch_1 not found", new IllegalStateException("closing")));
    assertEquals(
        "java.lang.reflect.UndeclaredThrowableException; caused by java.io.IOException: table"
            + " scratch_1 not found; caused by java.lang.IllegalStateException: closing",
        BlockscopeCli.describe(e));
  }

  @Test
  public void aFailureWithoutCauseIsItself() {
    assertEquals(
        "java.lang.IllegalStateException: no region server",
        BlockscopeCli.describe(new IllegalStateException("no region server")));
  }

  @Test
  public void aLongChainStopsAfterFiveCauses() {
    Throwable e = new RuntimeException("0");
    for (int i = 1; i <= 8; i++) {
      e = new RuntimeException(Integer.toString(i), e);
    }
    String line = BlockscopeCli.describe(e);
    assertEquals(line, 5, line.split("; caused by ").length - 1);
  }
}
