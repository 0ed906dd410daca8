package io.blockscope.encoding;

/**
 * A BLOCKSCOPE_V1 block that cannot be what the encoder wrote: a length past the end of its
 * entries, a restart index out of order, a number longer than ten bytes. Unchecked because
 * HBase's seeker methods declare no exception; the scanner that read the block fails with it.
 */
public class CorruptBlockException extends IllegalStateException {
  private static final long serialVersionUID = 1L;

  public CorruptBlockException(String message) {
    super(message);
  }
}
