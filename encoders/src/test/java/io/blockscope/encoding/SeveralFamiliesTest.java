package io.blockscope.encoding;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.apache.hadoop.hbase.CellComparator;
import org.apache.hadoop.hbase.io.encoding.DataBlockEncoder;
import org.apache.hadoop.hbase.io.encoding.DataBlockEncoding;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.junit.runners.Parameterized;
import org.junit.runners.Parameterized.Parameters;

/**
 * {@link EncodingContractTest#severalFamilies} for the encoders and comparators of {@link
 * EncodingContractTest#encoders()} that can hold several families in one block; the others are left
 * out of the parameters rather than skipped, so that a skip reported here would be real.
 */
@RunWith(Parameterized.class)
public class SeveralFamiliesTest {
  @Parameters(name = "{0}")
  public static Collection<Object[]> encoders() {
    List<Object[]> some = new ArrayList<>();
    for (Object[] p : EncodingContractTest.encoders()) {
      if (EncodingContractTest.holdsSeveralFamilies(
          (DataBlockEncoding) p[1], (CellComparator) p[3])) {
        some.add(p);
      }
    }
    return some;
  }

  private final EncodingContractTest contract;

  public SeveralFamiliesTest(
      String name,
      DataBlockEncoding encoding,
      DataBlockEncoder encoder,
      CellComparator comparator) {
    contract = new EncodingContractTest(name, encoding, encoder, comparator);
  }

  @Test
  public void seeksFollowAFamilyThatChanges() throws Exception {
    contract.severalFamilies();
  }
}
