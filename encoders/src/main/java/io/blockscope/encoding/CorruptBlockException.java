package io.blockscope.encoding;

import org.apache.hadoop.hbase.io.hfile.CorruptHFileException;

/**
 * A BLOCKSCOPE_V1 block that cannot be what the encoder wrote: a length past the end of its
 * entries, a restart index out of order, a number longer than ten bytes. To HBase it is a corrupt
 * store file: a {@link CorruptHFileException}, so a {@link java.io.IOException} and a {@code
 * DoNotRetryIOException}, as HBase's own reader throws for a block it cannot decode ({@code
 * HFileReaderImpl.EncodedScanner.updateCurrentBlock}).
 *
 * <p>Thrown with {@link #raise}, also from the seeker's methods, which declare no exception.
 */
public class CorruptBlockException extends CorruptHFileException {
  private static final long serialVersionUID = 2L;

  /*
   * Why a checked exception leaves methods that do not declare it.
   *
   * HBase 2.6.1 reads an encoded block through DataBlockEncoder.EncodedSeeker (hbase-common):
   * setCurrentBuffer, seekToKeyInBlock, next, getCell, getKey, getValueShallowCopy, rewind and
   * compareKey declare no exception, nor does DataBlockEncoder.getFirstKeyCellInBlock. Corruption
   * is found inside them (the seeker reads a group when a seek or walk first comes to it), so it
   * has to leave through them. An IllegalStateException would not do: HBase handles that as a
   * bug, not as a bad file:
   *  - StoreFileScanner.next/seek/reseek/seekToPreviousRow catch IOException only (and wrap it
   *    in "Could not iterate/seek <scanner>", naming the file); a RuntimeException passes them;
   *  - RSRpcServices.scan catches IOException, closes the region scanner and answers with the
   *    exception (a DoNotRetryIOException as it is, any other as ScannerResetException, which
   *    the client's ClientScanner retries a bounded number of times, then throws); a
   *    RuntimeException skips that block: the region scanner stays open, the client sees a
   *    remote IllegalStateException and retries the same RPC;
   *  - compactions (CompactSplit.CompactionRunner.doCompaction) log either and retry later.
   *
   * There is no unchecked wrapper HBase unwraps on this path (nothing in io.hfile or
   * regionserver catches UncheckedIOException or a RuntimeException to rethrow it as an
   * IOException). So the exception is thrown as what it is, a CorruptHFileException, without
   * the compiler's check ("sneaky throw": the JVM does not check declared exceptions). Every
   * HBase caller of these methods on the read and compaction paths is in a method that
   * declares IOException, and its IOException handlers do catch it:
   *  - setCurrentBuffer: only from HFileReaderImpl.EncodedScanner.updateCurrentBlock, declared
   *    `throws CorruptHFileException` (this type exactly);
   *  - seekToKeyInBlock: EncodedScanner.loadBlockAndSeekToKey, `throws IOException`;
   *  - next: EncodedScanner.next, `throws IOException`;
   *  - getCell, getKey, getValueShallowCopy, compareKey, getFirstKeyCellInBlock: through
   *    HFileScannerImpl's seekTo/reseekTo/seekBefore/next (all `throws IOException`) and
   *    StoreFileScanner, whose every call to HFileScanner.getCell is in a method that declares
   *    IOException (next, seek, reseek, skipKVsNewerThanReadpoint, the seekToPreviousRow
   *    helpers) and reaches one of the handlers above.
   * A caller that catches neither (a tool) still sees an IOException go up its stack, which is
   * what it gets from a corrupt HFile anyway.
   */

  public CorruptBlockException(String message) {
    super(message);
  }

  /**
   * Throws a new CorruptBlockException from any method, declared or not (see above). Declared to
   * return an exception so that callers write {@code throw raise(...)} and the compiler sees the
   * path end.
   */
  static RuntimeException raise(String message) {
    throw CorruptBlockException.<RuntimeException>unchecked(new CorruptBlockException(message));
  }

  @SuppressWarnings({"unchecked", "TypeParameterUnusedInFormals"}) // the sneaky-throw idiom
  private static <T extends Throwable> T unchecked(Throwable t) throws T {
    throw (T) t;
  }
}
