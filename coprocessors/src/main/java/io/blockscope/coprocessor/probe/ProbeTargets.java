package io.blockscope.coprocessor.probe;

import io.blockscope.metrics.CostLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The HBase methods each probe is woven into, by probe id ({@link #PROBES}), and the encoding each
 * seeker class decodes. This list is the one place a probe's targets are written: {@link
 * ProbeChecks} checks it against the HBase in the server, {@link ProbeWeaver} weaves it.
 */
final class ProbeTargets {
  private ProbeTargets() {}

  private static final String HFILE = "org.apache.hadoop.hbase.io.hfile.";
  private static final String ENCODING = "org.apache.hadoop.hbase.io.encoding.";
  private static final String BYTE_BUFF = "org.apache.hadoop.hbase.nio.ByteBuff";
  private static final String REGION_SERVER = "org.apache.hadoop.hbase.regionserver.";
  private static final String CALL_RUNNER = "org.apache.hadoop.hbase.ipc.CallRunner";

  /**
   * The region server's short-circuit connection (HBase 2.5 and 2.6): a client call to a region on
   * the same server runs the RPC service on the caller's own thread (a coprocessor's pool, a
   * compaction hook), through this wrapper's {@code doCall}, never through {@code CallRunner}.
   */
  static final String SHORT_CIRCUIT_CALL =
      "org.apache.hadoop.hbase.client.ServerConnectionUtils$ShortCircuitingClusterConnection"
          + "$ClientServiceBlockingInterfaceWrapper";

  /**
   * The key an encoded seeker seeks to: a Cell up to HBase 3.0.0-beta-1, an ExtendedCell from HBase
   * 3.0.0 on (its HFileReaderImpl calls {@code EncodedSeeker.seekToKeyInBlock(ExtendedCell,
   * boolean)}).
   */
  static final String CELL = "org.apache.hadoop.hbase.Cell|org.apache.hadoop.hbase.ExtendedCell";

  /**
   * One HBase method a probe is woven into. A parameter written {@code A|B} is the type that
   * changed between HBase versions: A on one, B on another ({@link #CELL}); the method takes one of
   * them.
   */
  static final class Target {
    private final String type;
    private final String method;
    private final Class<?> advice;
    private final String[] params;

    Target(String type, String method, Class<?> advice, String... params) {
      this.type = type;
      this.method = method;
      this.advice = advice;
      this.params = params;
    }

    String type() {
      return type;
    }

    String method() {
      return method;
    }

    Class<?> advice() {
      return advice;
    }

    String[] params() {
      return params;
    }

    /** The type names parameter {@code i} may have: one, or each of an {@code A|B}. */
    List<String> alternatives(int i) {
      return list(params[i].split("\\|"));
    }

    @Override
    public String toString() {
      return type.substring(type.lastIndexOf('.') + 1)
          + "."
          + method
          + "("
          + String.join(", ", params)
          + ")";
    }
  }

  /**
   * Seekers whose decode methods the DECODE probe weaves (HBase 2.6 class names), and the encoding
   * each decodes. CopyKey is a test encoding that no DataBlockEncoding names.
   */
  static final Map<String, String> SEEKER_ENCODING = seekerEncodings();

  private static Map<String, String> seekerEncodings() {
    Map<String, String> m = new HashMap<>();
    m.put(ENCODING + "CopyKeyDataBlockEncoder$SeekerStateBufferedEncodedSeeker", "OTHER");
    m.put(ENCODING + "DiffKeyDeltaEncoder$DiffSeekerStateBufferedEncodedSeeker", "DIFF");
    m.put(ENCODING + "FastDiffDeltaEncoder$FastDiffSeekerStateBufferedEncodedSeeker", "FAST_DIFF");
    m.put(ENCODING + "PrefixKeyDeltaEncoder$SeekerStateBufferedEncodedSeeker", "PREFIX");
    m.put(ENCODING + "RowIndexSeekerV1", "ROW_INDEX_V1");
    return Collections.unmodifiableMap(m);
  }

  /**
   * Seekers whose decodeFirst() decodes the first cell itself instead of calling decodeNext()
   * (HBase 2.6 DiffKeyDeltaEncoder and FastDiffDeltaEncoder); the others' first cell is counted in
   * decodeNext.
   */
  static final Set<String> FIRST_DECODES_ITSELF =
      set(
          ENCODING + "DiffKeyDeltaEncoder$DiffSeekerStateBufferedEncodedSeeker",
          ENCODING + "FastDiffDeltaEncoder$FastDiffSeekerStateBufferedEncodedSeeker");

  static final List<String> SEEKERS =
      Collections.unmodifiableList(new ArrayList<>(new TreeSet<>(SEEKER_ENCODING.keySet())));

  /**
   * blockscope's own BLOCKSCOPE_V1 seeker (the encoders jar, docs/encoder.md), counted under its
   * own name: cells it decodes ({@code decode(Entry, int, boolean)}, one entry's key or whole cell;
   * entries a seek steps over undecoded are not counted), its seeks and its time. Optional: a
   * region server without the encoders jar keeps the decode probe for HBase's seekers.
   */
  static final String BLOCKSCOPE_SEEKER = "io.blockscope.encoding.BlockscopeV1Seeker";

  static final String BLOCKSCOPE_ENCODING = "BLOCKSCOPE_V1";

  /**
   * The decoded entry the seeker's {@code decode} fills: its own class in the encoders jar of this
   * release, nested in the seeker in an encoders jar of an earlier release.
   */
  static final String BLOCKSCOPE_ENTRY =
      "io.blockscope.encoding.Entry|" + BLOCKSCOPE_SEEKER + "$Entry";

  /** Types a probe weaves where they exist: blockscope's encoder, HBase's short-circuit calls. */
  static final Set<String> OPTIONAL_TYPES = set(BLOCKSCOPE_SEEKER, SHORT_CIRCUIT_CALL);

  /** The blockscope encoding index of a seeker class, named; OTHER for one not known here. */
  static int encodingOfSeeker(String seekerClass) {
    String encoding =
        seekerClass.equals(BLOCKSCOPE_SEEKER)
            ? BLOCKSCOPE_ENCODING
            : SEEKER_ENCODING.get(seekerClass);
    return CostLayout.encodingIndex(encoding == null ? "OTHER" : encoding);
  }

  /** {@link #encodingOfSeekerType}, worked out once per class. */
  private static final ClassValue<Integer> SEEKER_ENCODINGS =
      new ClassValue<Integer>() {
        @Override
        protected Integer computeValue(Class<?> type) {
          for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            if (c.getName().equals(BLOCKSCOPE_SEEKER) || SEEKER_ENCODING.containsKey(c.getName())) {
              return encodingOfSeeker(c.getName());
            }
          }
          return CostLayout.N_ENCODINGS - 1;
        }
      };

  /** The encoding index of a seeker class, by its own name or its nearest known superclass. */
  static int encodingOfSeekerType(Class<?> seeker) {
    return SEEKER_ENCODINGS.get(seeker);
  }

  private static final String BUFFERED_SEEKER =
      ENCODING + "BufferedDataBlockEncoder$BufferedEncodedSeeker";

  /** The method name a {@link Target} gives for a constructor. */
  static final String CONSTRUCTOR = "<init>";

  /** Every probe's targets, indexed by probe id. */
  static final List<List<Target>> PROBES =
      list(
          list(
              new Target(
                  HFILE + "HFileReaderImpl",
                  "getCachedBlock",
                  ReadPathAdvice.CacheLookup.class,
                  HFILE + "BlockCacheKey",
                  "boolean",
                  "boolean",
                  "boolean",
                  HFILE + "BlockType",
                  ENCODING + "DataBlockEncoding"),
              new Target(
                  HFILE + "HFileReaderImpl",
                  "readBlock",
                  ReadPathAdvice.ReadBlock.class,
                  "long",
                  "long",
                  "boolean",
                  "boolean",
                  "boolean",
                  "boolean",
                  HFILE + "BlockType",
                  ENCODING + "DataBlockEncoding",
                  "boolean")),
          list(
              new Target(
                  HFILE + "HFileBlock$FSReaderImpl",
                  "readBlockData",
                  ReadPathAdvice.FsRead.class,
                  "long",
                  "long",
                  "boolean",
                  "boolean",
                  "boolean")),
          list(
              new Target(
                  HFILE + "ChecksumUtil",
                  "validateChecksum",
                  ReadPathAdvice.Checksum.class,
                  BYTE_BUFF,
                  "java.lang.String",
                  "long",
                  "int")),
          list(
              new Target(
                  ENCODING + "HFileBlockDefaultDecodingContext",
                  "prepareDecoding",
                  ReadPathAdvice.Decompress.class,
                  "int",
                  "int",
                  BYTE_BUFF,
                  BYTE_BUFF)),
          decodeTargets(),
          list(
              new Target(CALL_RUNNER, "run", ReadPathAdvice.CallEnd.class),
              new Target(
                  SHORT_CIRCUIT_CALL,
                  "doCall",
                  ReadPathAdvice.CallEnd.class,
                  "org.apache.hbase.thirdparty.com.google.protobuf.RpcController",
                  "java.lang.Object",
                  SHORT_CIRCUIT_CALL + "$Operation")),
          list(
              new Target(
                  REGION_SERVER + "SegmentScanner",
                  "updateCurrent",
                  ReadPathAdvice.MemstoreCell.class)),
          cacheReuseTargets());

  private static List<Target> cacheReuseTargets() {
    List<Target> t = new ArrayList<>();
    t.add(
        new Target(
            HFILE + "HFileReaderImpl",
            CONSTRUCTOR,
            ReadPathAdvice.FileOpened.class,
            HFILE + "ReaderContext",
            HFILE + "HFileInfo",
            HFILE + "CacheConfig",
            "org.apache.hadoop.conf.Configuration"));
    t.add(
        new Target(
            HFILE + "HFileWriterImpl",
            CONSTRUCTOR,
            ReadPathAdvice.FileOpened.class,
            "org.apache.hadoop.conf.Configuration",
            HFILE + "CacheConfig",
            "org.apache.hadoop.fs.Path",
            "org.apache.hadoop.fs.FSDataOutputStream",
            HFILE + "HFileContext"));
    t.add(
        new Target(
            HFILE + "LruCachedBlock",
            CONSTRUCTOR,
            ReadPathAdvice.CacheInsert.class,
            HFILE + "BlockCacheKey",
            HFILE + "Cacheable",
            "long",
            "boolean"));
    String bucket = HFILE + "bucket.";
    t.add(
        new Target(
            bucket + "BucketCache",
            "putIntoBackingMap",
            ReadPathAdvice.BucketInsert.class,
            HFILE + "BlockCacheKey",
            bucket + "BucketEntry"));
    t.add(
        new Target(
            bucket + "BucketCache",
            "blockEvicted",
            ReadPathAdvice.BucketEvict.class,
            HFILE + "BlockCacheKey",
            bucket + "BucketEntry",
            "boolean",
            "boolean"));
    t.add(
        new Target(
            bucket + "BucketEntry", "access", ReadPathAdvice.BucketEntryAccess.class, "long"));
    t.add(
        new Target(
            bucket + "BucketCache",
            "getBlock",
            ReadPathAdvice.BucketLookup.class,
            HFILE + "BlockCacheKey",
            "boolean",
            "boolean",
            "boolean"));
    for (String cache : list("LruBlockCache", "LruAdaptiveBlockCache")) {
      t.add(
          new Target(
              HFILE + cache,
              "evictBlock",
              ReadPathAdvice.CacheEvict.class,
              HFILE + "LruCachedBlock",
              "boolean"));
    }
    return t;
  }

  private static List<Target> decodeTargets() {
    List<Target> t = new ArrayList<>();
    for (String seeker : SEEKERS) {
      t.add(new Target(seeker, "decodeNext", ReadPathAdvice.DecodeCell.class));
      if (FIRST_DECODES_ITSELF.contains(seeker)) {
        t.add(new Target(seeker, "decodeFirst", ReadPathAdvice.DecodeCell.class));
      }
    }
    t.add(
        new Target(
            BLOCKSCOPE_SEEKER,
            "decode",
            ReadPathAdvice.DecodeCell.class,
            BLOCKSCOPE_ENTRY,
            "int",
            "boolean"));
    for (String seeker : list(BUFFERED_SEEKER, ENCODING + "RowIndexSeekerV1", BLOCKSCOPE_SEEKER)) {
      t.add(new Target(seeker, "rewind", ReadPathAdvice.SeekerCall.class));
      t.add(new Target(seeker, "setCurrentBuffer", ReadPathAdvice.SeekerCall.class, BYTE_BUFF));
      t.add(
          new Target(seeker, "seekToKeyInBlock", ReadPathAdvice.SeekerSeek.class, CELL, "boolean"));
    }
    return t;
  }

  /** An unmodifiable list of the items (List.of is JDK 9; this jar runs on JDK 8 too). */
  @SafeVarargs
  @SuppressWarnings("varargs") // the array is only wrapped, never written or handed out
  private static <T> List<T> list(T... items) {
    return Collections.unmodifiableList(Arrays.asList(items));
  }

  @SafeVarargs
  @SuppressWarnings("varargs") // the array is only copied
  private static <T> Set<T> set(T... items) {
    return Collections.unmodifiableSet(new HashSet<>(Arrays.asList(items)));
  }
}
