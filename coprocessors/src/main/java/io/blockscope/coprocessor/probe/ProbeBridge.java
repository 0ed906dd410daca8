package io.blockscope.coprocessor.probe;

import io.blockscope.metrics.CacheReuse;
import io.blockscope.metrics.CostLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.ref.WeakReference;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.IntConsumer;
import java.util.function.IntUnaryOperator;
import java.util.function.ToIntFunction;
import org.apache.hadoop.hbase.Cell;
import org.apache.hadoop.hbase.io.compress.Compression;
import org.apache.hadoop.hbase.io.hfile.BlockCacheKey;
import org.apache.hadoop.hbase.io.hfile.BlockPriority;
import org.apache.hadoop.hbase.io.hfile.BlockType;
import org.apache.hadoop.hbase.io.hfile.Cacheable;
import org.apache.hadoop.hbase.io.hfile.HFileBlock;
import org.apache.hadoop.hbase.io.hfile.HFileContext;
import org.apache.hadoop.hbase.io.hfile.LruCachedBlock;
import org.apache.hadoop.hbase.nio.ByteBuff;

/**
 * What the read-path advice calls: the per-thread cost array and the probes' health.
 *
 * <p>Advice code is inlined into HBase's own classes, so whatever it calls must be visible from
 * HBase's class loader. This class is that meeting point: it is loaded by the region server's
 * application class loader (from the server classpath when blockscope is deployed cluster-wide, or
 * injected there by {@link ProbeInstaller} when the coprocessor jar comes from a table descriptor
 * and its classes live in HBase's child-first {@code CoprocessorClassLoader}).
 *
 * <p>Rules this class keeps, because it may be injected alone into another class loader:
 *
 * <ul>
 *   <li>it refers only to JDK and HBase types and to itself; {@link CostLayout} constants are
 *       compile-time constants that javac inlines, no method of CostLayout is called;
 *   <li>no enum switch (that would add a synthetic class), no nested classes; a lambda is compiled
 *       into this class itself, and what comes from outside arrives as JDK types ({@code int[]},
 *       {@code ToIntFunction});
 *   <li>every method catches everything and counts it in {@link #FAILURES}: nothing is ever thrown
 *       into HBase's read path.
 * </ul>
 *
 * <p>The cost array of a thread is filled only while the thread's level slot is above OFF, that is
 * while blockscope's RegionObserver has opened a frame on it; all other reads (region open,
 * prefetch, flush) cost one thread-local read and a compare. While no region of the server is
 * measured ({@link #measuring} false: every region at OFF), a probe returns after one static field
 * read, before the thread-local. The cacheReuse probe reads no thread's costs: it counts blocks
 * entering and leaving the block cache by table, on whatever thread inserts or evicts them, while
 * any region of the server is measured.
 *
 * <p>What each probe costs where it is paid most often (docs/performance.md): the decode probe runs
 * once per decoded cell and does one thread-local read and one increment there; at TIME the
 * seeker's seeks and block starts ({@code seekToKeyInBlock}, {@code rewind}, {@code
 * setCurrentBuffer}) are timed one in {@link #SEEK_SAMPLE}, and its cell steps outside them one in
 * {@link #CELL_SAMPLE}, each scaled. The memstore probe runs once per cell a read takes from the
 * memstore and does the same. Everything else runs once per block or once per RPC.
 */
public final class ProbeBridge {
  private ProbeBridge() {}

  /** Probe ids; names in {@link #PROBE_NAMES}. */
  public static final int CACHE = 0;

  public static final int FS_READ = 1;
  public static final int CHECKSUM = 2;
  public static final int DECOMPRESS = 3;
  public static final int DECODE = 4;

  /** Not a cost: the end of every RPC call on a handler thread ({@link #callEnded}). */
  public static final int RPC_CALL = 5;

  /** Cells a read takes from the memstore ({@link #memstoreCell}). */
  public static final int MEMSTORE = 6;

  /**
   * Not a cost: blocks entering and leaving the block cache, by table ({@link #hfileOpened}, {@link
   * #cacheInserted}, {@link #cacheEvicted}); counted on whatever thread inserts or evicts, whatever
   * the regions' levels.
   */
  public static final int CACHE_REUSE = 7;

  public static final int N_PROBES = 8;

  @SuppressWarnings("MutablePublicArray") // the bridge links JDK types only; nothing writes it
  public static final String[] PROBE_NAMES = {
    "blockCache", "fsRead", "checksum", "decompress", "decode", "rpcCall", "memstore", "cacheReuse"
  };

  /** 1 where a probe's advice is in place. */
  public static final AtomicIntegerArray INSTALLED = new AtomicIntegerArray(N_PROBES);

  /** Failures each probe caught and swallowed. */
  public static final AtomicLongArray FAILURES = new AtomicLongArray(N_PROBES);

  /**
   * Why each probe could not be woven, once some copy of blockscope tried and failed (null: not
   * tried, or woven): a probe is tried once per JVM, whichever copy comes first, and the others
   * report the same reason. Written only under the lock that installs probes.
   */
  @SuppressWarnings("MutablePublicArray") // the bridge links JDK types only
  public static final AtomicReferenceArray<String> UNAVAILABLE =
      new AtomicReferenceArray<>(N_PROBES);

  /**
   * The JVM-wide lock under which every copy of blockscope weaves probes and makes or joins the
   * engine: each copy's own {@code synchronized} locks only that copy.
   */
  public static final Object SETUP_LOCK = new Object();

  /**
   * How many times each probe counts the event it sees, when a test drill changes it: null (once,
   * the production value) unless a drill of the test suite set it. Given the probe's id, it answers
   * a count (0, 1 or 2) or throws. A probe reads this one volatile field per call and nothing more
   * while it is null.
   */
  public static volatile IntUnaryOperator drill;

  /** The JVM-wide blockscope engine, whichever class loader made it. */
  private static Object engine;

  private static final int OFF = 0;
  private static final int TIME = 2;

  /**
   * False while the engine knows that no region of this server is measured (all at OFF): every
   * probe then returns before it reads the thread's cost array. True until an engine says
   * otherwise, so that a bridge without an engine measures as its frames decide.
   */
  public static volatile boolean measuring = true;

  /**
   * At TIME, the decode probe times one cell step in this many (a power of two; chosen at random,
   * each step with that chance) and counts the time times this; each cell is still counted.
   */
  public static final int CELL_SAMPLE = 16;

  /**
   * At TIME, one seek or block start of a seeker in this many (a power of two; chosen at random, as
   * cell steps are) is timed, with the cells it decodes, and its time counted this many times; each
   * seek is still counted.
   */
  public static final int SEEK_SAMPLE = 16;

  /*
   * The thread's CostLayout.CELL_SAMPLING slot: a xorshift state (bits 0-31) that decides, for each
   * cell step and each seeker call, whether it is the one in 16 timed, and IN_SEEKER. The choice is
   * random, not every sixteenth: a read's calls come in patterns (a block start, then a seek; two
   * cells a row), and a fixed period would time the same kind of call every time (every seek and no
   * block start, with two calls a point read) and scale its time for all.
   */
  private static final long STATE = 0xFFFF_FFFFL;

  /** The state a thread's first decision starts from (any non-zero value). */
  static final long SEED = 0x9E37_79B9L;

  /** Advances a xorshift state (32 bits, never 0 from a non-zero one). */
  static long nextState(long state) {
    long x = state == 0 ? SEED : state;
    x ^= (x << 13) & STATE;
    x ^= x >>> 17;
    x ^= (x << 5) & STATE;
    return x;
  }

  /**
   * Set while a seeker call runs (timed or not): the cells it decodes are in its time, which one
   * call in {@link #SEEK_SAMPLE} measures for all, so none of them is sampled on its own.
   */
  private static final long IN_SEEKER = 1L << 62;

  /** What {@link #seekerStart} returns for a seeker call at TIME that is not one of the sample. */
  static final long UNTIMED = Long.MIN_VALUE;

  /**
   * What two back-to-back {@link System#nanoTime} reads measure on this machine (their smallest
   * difference): taken off each sampled cell step, which is not much longer than that.
   */
  public static final long NANO_TIME_COST = nanoTimeCost();

  // HFileBlock header offsets (HFileBlock.Header, package-private there; a test pins them).
  static final int HEADER_CHECKSUM_TYPE = 24;
  static final int HEADER_BYTES_PER_CHECKSUM = 25;
  static final int HEADER_ON_DISK_DATA_SIZE_WITH_HEADER = 29;

  private static final ThreadLocal<long[]> COSTS =
      ThreadLocal.withInitial(() -> new long[CostLayout.SIZE]);

  private static volatile int[] kindByBlockType = new int[0];
  private static volatile int[] indexByAlgorithm = new int[0];
  private static volatile ToIntFunction<Class<?>> encodingOfSeeker =
      seeker -> CostLayout.N_ENCODINGS - 1;

  /** What the engine does when a call ends with frames still open on the thread; null: none. */
  private static volatile IntConsumer callEndHook;

  /** The calling thread's cost array (see {@link CostLayout} for its slots). */
  public static long[] costs() {
    return COSTS.get();
  }

  /** Sets the maps from HBase enum ordinals to blockscope's dimensions. */
  public static void maps(
      int[] blockTypes, int[] algorithms, ToIntFunction<Class<?>> seekerEncodings) {
    kindByBlockType = blockTypes;
    indexByAlgorithm = algorithms;
    encodingOfSeeker = seekerEncodings;
  }

  /** Publishes {@code candidate} as the engine unless one exists; returns the one in force. */
  public static synchronized Object engine(Object candidate) {
    if (engine == null) {
      engine = candidate;
    }
    return engine;
  }

  /**
   * Sets what runs when an RPC call ends with attribution frames it opened still open on its
   * thread: the hook closes every frame above the depth it is given.
   */
  public static void onCallEnd(IntConsumer hook) {
    callEndHook = hook;
  }

  // ---- called from advice -------------------------------------------------------------------

  /** An RPC call starts on this thread: the thread's frame depth now, to hand to callEnded. */
  public static long callStarted() {
    try {
      return COSTS.get()[CostLayout.DEPTH];
    } catch (Throwable t) {
      fail(RPC_CALL);
      return Long.MAX_VALUE; // closes nothing at the end
    }
  }

  /**
   * The RPC call that started at frame depth {@code depthAtStart} returned or threw. Frames it
   * opened and left open (a read threw before its post-hook, an observer bypassed) are the engine's
   * to close; otherwise this is one thread-local read and a compare per call.
   */
  public static void callEnded(long depthAtStart) {
    try {
      events(RPC_CALL);
      if (COSTS.get()[CostLayout.DEPTH] <= depthAtStart) {
        return;
      }
      IntConsumer hook = callEndHook;
      if (hook != null) {
        hook.accept((int) depthAtStart);
      }
    } catch (Throwable t) {
      fail(RPC_CALL);
    }
  }

  /** Start time for a timed section, or 0 when the thread is not at TIME. */
  public static long start() {
    if (!measuring) {
      return 0L;
    }
    return COSTS.get()[CostLayout.LEVEL] == TIME ? System.nanoTime() : 0L;
  }

  /**
   * A seeker call begins at TIME: its start time if it is one in {@link #SEEK_SAMPLE}, {@link
   * #UNTIMED} if not; 0 at other levels, and inside another seeker call (whose time holds this
   * one's). The cells it decodes are not sampled on their own either way.
   */
  public static long seekerStart() {
    if (!measuring) {
      return 0L;
    }
    long[] c = COSTS.get();
    long sampling = c[CostLayout.CELL_SAMPLING];
    if (c[CostLayout.LEVEL] != TIME || (sampling & IN_SEEKER) != 0) {
      return 0L;
    }
    long state = nextState(sampling & STATE);
    c[CostLayout.CELL_SAMPLING] = state | IN_SEEKER;
    if ((state & (SEEK_SAMPLE - 1)) != 0) {
      return UNTIMED;
    }
    long now = System.nanoTime();
    return now == 0 || now == UNTIMED ? 1 : now;
  }

  /** {@code HFileReaderImpl.getCachedBlock} returned; mirrors how {@code CacheStats} counts. */
  public static void cacheLookup(
      HFileBlock found, boolean useLock, boolean updateCacheMetrics, BlockType expected) {
    if (!measuring) {
      return;
    }
    long[] c = COSTS.get();
    if (c[CostLayout.LEVEL] == OFF || !updateCacheMetrics) {
      return;
    }
    try {
      if (found != null) {
        c[CostLayout.CACHE_HIT + kind(found.getBlockType())] += events(CACHE);
      } else if (!useLock) {
        if (expected != null) {
          c[CostLayout.CACHE_MISS + kind(expected)] += events(CACHE);
        } else {
          c[CostLayout.PENDING_MISS] = 1; // the block type is known once readBlock returns
        }
      }
    } catch (Throwable t) {
      fail(CACHE);
    }
  }

  /** {@code HFileReaderImpl.readBlock} returned (or threw: block is null). */
  public static void readBlockDone(HFileBlock block, BlockType expected) {
    if (!measuring) {
      return;
    }
    long[] c = COSTS.get();
    if (c[CostLayout.PENDING_MISS] == 0) {
      return;
    }
    c[CostLayout.PENDING_MISS] = 0;
    try {
      int n = events(CACHE);
      BlockType type = block != null ? block.getBlockType() : expected;
      c[CostLayout.CACHE_MISS + (type == null ? CostLayout.KIND_OTHER : kind(type))] += n;
    } catch (Throwable t) {
      fail(CACHE);
    }
  }

  /** {@code HFileBlock.FSReaderImpl.readBlockData} returned a block read from the file system. */
  public static void fsRead(HFileBlock block) {
    if (!measuring) {
      return;
    }
    long[] c = COSTS.get();
    if (c[CostLayout.LEVEL] == OFF || block == null) {
      return;
    }
    try {
      int n = events(FS_READ);
      int k = kind(block.getBlockType());
      c[CostLayout.FS_BLOCKS + k] += n;
      c[CostLayout.FS_BYTES + k] += (long) n * block.getOnDiskSizeWithHeader();
    } catch (Throwable t) {
      fail(FS_READ);
    }
  }

  /** {@code ChecksumUtil.validateChecksum} returned {@code ok} for an on-disk block. */
  public static void checksum(ByteBuff block, boolean ok, long start) {
    if (!measuring) {
      return;
    }
    long[] c = COSTS.get();
    if (c[CostLayout.LEVEL] == OFF) {
      return;
    }
    try {
      if (block.get(HEADER_CHECKSUM_TYPE) == 0) {
        return; // ChecksumType.NULL: nothing was verified
      }
      int n = events(CHECKSUM);
      int perChunk = block.getInt(HEADER_BYTES_PER_CHECKSUM);
      int data = block.getInt(HEADER_ON_DISK_DATA_SIZE_WITH_HEADER);
      c[CostLayout.CHECKSUM_BYTES] += (long) n * block.limit();
      c[CostLayout.CHECKSUM_CHUNKS] += perChunk > 0 ? n * ((data + perChunk - 1) / perChunk) : 0;
      if (!ok) {
        c[CostLayout.CHECKSUM_FAILURES] += n;
      }
      if (start != 0) {
        c[CostLayout.CHECKSUM_NANOS] += System.nanoTime() - start;
      }
    } catch (Throwable t) {
      fail(CHECKSUM);
    }
  }

  /** {@code HFileBlockDefaultDecodingContext.prepareDecoding} unpacked one block. */
  public static void decompressed(HFileContext context, int bytesIn, int bytesOut, long start) {
    if (!measuring) {
      return;
    }
    long[] c = COSTS.get();
    if (c[CostLayout.LEVEL] == OFF) {
      return;
    }
    try {
      Compression.Algorithm alg = context.getCompression();
      if (alg == Compression.Algorithm.NONE) {
        return; // an encrypted, uncompressed block
      }
      int n = events(DECOMPRESS);
      int[] map = indexByAlgorithm;
      int a = alg.ordinal() < map.length ? map[alg.ordinal()] : CostLayout.N_ALGORITHMS - 1;
      int base = CostLayout.DECOMPRESS + a * CostLayout.DECOMPRESS_WIDTH;
      c[base + CostLayout.DECOMPRESS_BLOCKS] += n;
      c[base + CostLayout.DECOMPRESS_IN] += (long) n * bytesIn;
      c[base + CostLayout.DECOMPRESS_OUT] += (long) n * bytesOut;
      if (start != 0) {
        c[base + CostLayout.DECOMPRESS_NANOS] += System.nanoTime() - start;
      }
    } catch (Throwable t) {
      fail(DECOMPRESS);
    }
  }

  /**
   * An encoded seeker decodes one cell. Woven into {@code decodeNext} of every seeker and into
   * {@code decodeFirst} only where it does not call {@code decodeNext} itself (DIFF, FAST_DIFF), so
   * each cell counts once with one thread-local read; {@code DecodeProbeContractTest} holds every
   * encoding to that. At TIME, one cell step in {@link #CELL_SAMPLE} outside a timed seeker call
   * returns its start time for {@link #cellTimed}; otherwise 0.
   */
  public static long cell(int encoding) {
    if (!measuring) {
      return 0L;
    }
    long[] c = COSTS.get();
    long level = c[CostLayout.LEVEL];
    if (level == OFF) {
      return 0L;
    }
    try {
      c[CostLayout.DECODE + encoding * CostLayout.DECODE_WIDTH + CostLayout.DECODE_CELLS] +=
          events(DECODE);
      if (level == TIME) {
        long sampling = c[CostLayout.CELL_SAMPLING];
        if ((sampling & IN_SEEKER) == 0) {
          long state = nextState(sampling);
          c[CostLayout.CELL_SAMPLING] = state;
          if ((state & (CELL_SAMPLE - 1)) == 0) {
            return System.nanoTime();
          }
        }
      }
    } catch (Throwable t) {
      fail(DECODE);
    }
    return 0L;
  }

  /** A sampled cell step that began at {@code start} ended: it stands for {@link #CELL_SAMPLE}. */
  public static void cellTimed(int encoding, long start) {
    try {
      long took = System.nanoTime() - start - NANO_TIME_COST;
      if (took > 0) {
        COSTS
                .get()[
                CostLayout.DECODE + encoding * CostLayout.DECODE_WIDTH + CostLayout.DECODE_NANOS] +=
            took * CELL_SAMPLE;
      }
    } catch (Throwable t) {
      fail(DECODE);
    }
  }

  /**
   * A seek or block start of a seeker returned ({@code seekToKeyInBlock}, {@code rewind}, {@code
   * setCurrentBuffer}): {@code seekToKeyInBlock} counts a seek; at TIME, a call that {@link
   * #seekerStart} timed adds its time {@link #SEEK_SAMPLE} times, less a {@code nanoTime()} pair.
   */
  public static void seekerCall(Object seeker, boolean seek, long start) {
    if (!measuring) {
      return;
    }
    long[] c = COSTS.get();
    if (start != 0) {
      c[CostLayout.CELL_SAMPLING] &= ~IN_SEEKER;
    }
    if (c[CostLayout.LEVEL] == OFF) {
      return;
    }
    try {
      int base =
          CostLayout.DECODE
              + encodingOfSeeker.applyAsInt(seeker.getClass()) * CostLayout.DECODE_WIDTH;
      if (seek) {
        c[base + CostLayout.DECODE_SEEKS] += events(DECODE);
      }
      if (start != 0 && start != UNTIMED) {
        long took = System.nanoTime() - start - NANO_TIME_COST;
        if (took > 0) {
          c[base + CostLayout.DECODE_NANOS] += took * SEEK_SAMPLE;
        }
      }
    } catch (Throwable t) {
      fail(DECODE);
    }
  }

  /**
   * A memstore segment's scanner moved to {@code cell} ({@code SegmentScanner.updateCurrent}; null:
   * past the segment's end): one cell read from the memstore, with its serialized size (key, value
   * and tags, as HBase's memstore sizing and its own {@code BYTES_READ_FROM_MEMSTORE} count it). A
   * scanner moves once when it opens, once per seek and once per step, so a cell a seek lands on
   * again counts again, as a block a read looks up again does.
   */
  public static void memstoreCell(Cell cell) {
    if (!measuring || cell == null) {
      return;
    }
    long[] c = COSTS.get();
    if (c[CostLayout.LEVEL] == OFF) {
      return;
    }
    try {
      int n = events(MEMSTORE);
      c[CostLayout.MEMSTORE_CELLS] += n;
      c[CostLayout.MEMSTORE_BYTES] += (long) n * cell.getSerializedSize();
    } catch (Throwable t) {
      fail(MEMSTORE);
    }
  }

  // ---- block cache reuse, by table --------------------------------------------------------------

  /*
   * A BlockCacheKey names its block's file and nothing else (HBase 2.5 and 2.6), so the table of a
   * block entering or leaving the cache comes from a map of file names to tables that every HFile
   * reader and writer JVM-wide fills as it opens (hfileOpened). Inserts and evictions look a name
   * up without a lock: the map is two generations of concurrent maps, each of at most
   * CACHE_FILES / 2 names. A name opens into the newer one, and a lookup that finds a name only in
   * the older one copies it into the newer one. When the newer one is full, it becomes the older
   * one and the older one is dropped. So the names used in the last generation stay, and at most
   * CACHE_FILES are kept. A block of a file no longer in either counts under slot 0, (unknown), as
   * does one whose path is not a table's store file. Tables past CACHE_TABLES - 1 in one JVM count
   * under (unknown) too. Memory: CACHE_TABLES x CacheReuse.WIDTH counters (240 KB) and about 100
   * bytes per file name kept.
   */

  /** Table slots, (unknown) in slot 0 included. */
  public static final int CACHE_TABLES = 1024;

  /** File names whose table is kept, at most: the ones used last. */
  public static final int CACHE_FILES = 65_536;

  /** The name of slot 0: blocks of files whose table is not known. */
  public static final String UNKNOWN_TABLE = "(unknown)";

  /** Each table slot's {@link CacheReuse} counters, {@code slot * CacheReuse.WIDTH} on. */
  public static final AtomicLongArray CACHE_REUSE_COUNTS =
      new AtomicLongArray(CACHE_TABLES * CacheReuse.WIDTH);

  /** Guards the table slots and the turn of the file generations. */
  private static final Object CACHE_TABLES_LOCK = new Object();

  private static final String[] cacheTableNames = initialTableNames();

  /** Table to slot: read without the lock, written under it. */
  private static final Map<String, Integer> cacheTableSlots = new ConcurrentHashMap<>();

  /** File names to table slots: the newer generation, and the older one. */
  private static volatile ConcurrentHashMap<String, Integer> cacheFilesNew =
      new ConcurrentHashMap<>();

  private static volatile ConcurrentHashMap<String, Integer> cacheFilesOld =
      new ConcurrentHashMap<>();

  private static String[] initialTableNames() {
    String[] names = new String[CACHE_TABLES];
    names[0] = UNKNOWN_TABLE;
    return names;
  }

  /** The tables by slot: a copy, null past the last slot given out. */
  public static String[] cacheTables() {
    synchronized (CACHE_TABLES_LOCK) {
      return cacheTableNames.clone();
    }
  }

  /**
   * Entries of the file-name map now: names kept, a name copied into the newer generation counted
   * twice ({@link #CACHE_FILES} at most).
   */
  public static int cacheFiles() {
    return cacheFilesNew.size() + cacheFilesOld.size();
  }

  /**
   * An HFile reader or writer was made for {@code path} (a Hadoop Path), its blocks cached under
   * {@code name}: remembers the file's table.
   */
  public static void hfileOpened(String name, Object path) {
    try {
      if (name == null || path == null || cacheFilesNew.containsKey(name)) {
        return; // a file opened again (a scan's stream reader, say) whose name is kept already
      }
      String table = tableOfPath(path.toString());
      Integer slot = table == null ? Integer.valueOf(0) : cacheTableSlots.get(table);
      if (slot == null) {
        synchronized (CACHE_TABLES_LOCK) {
          slot = cacheTableSlots.get(table);
          if (slot == null) {
            slot = 0; // past the last slot: (unknown), asked again at the file's next open
            if (cacheTableSlots.size() < CACHE_TABLES - 1) {
              slot = cacheTableSlots.size() + 1;
              cacheTableNames[slot] = table;
              cacheTableSlots.put(table, slot);
            }
          }
        }
      }
      keepFile(name, slot);
    } catch (Throwable t) {
      fail(CACHE_REUSE);
    }
  }

  /**
   * Puts a file's table slot into the newer generation, turning the generations when it is full.
   */
  private static void keepFile(String name, int slot) {
    ConcurrentHashMap<String, Integer> newer = cacheFilesNew;
    if (newer.size() >= CACHE_FILES / 2) {
      synchronized (CACHE_TABLES_LOCK) {
        if (cacheFilesNew.size() >= CACHE_FILES / 2) {
          cacheFilesOld = cacheFilesNew;
          cacheFilesNew = new ConcurrentHashMap<>();
        }
        newer = cacheFilesNew;
      }
    }
    newer.put(name, slot);
  }

  /**
   * The table of a store file's path ({@code .../data/<namespace>/<table>/<region>/[.tmp/]<family>/
   * <file>}, under the root, the archive or the MOB directory), as HBase names it ({@code t} in the
   * default namespace, {@code ns:t} elsewhere); null for any other path.
   */
  static String tableOfPath(String path) {
    String[] parts = path.split("/");
    int family = parts.length - 2;
    int region = family - 1;
    if (region >= 0 && parts[region].equals(".tmp")) {
      region--;
    }
    if (region < 3 || !isEncodedRegionName(parts[region]) || !parts[region - 3].equals("data")) {
      return null;
    }
    String namespace = parts[region - 2];
    String table = parts[region - 1];
    if (namespace.isEmpty() || table.isEmpty() || parts[family].isEmpty()) {
      return null;
    }
    return namespace.equals("default") ? table : namespace + ":" + table;
  }

  /**
   * An encoded region name: 32 lower-case hex digits (an MD5), or the decimal Jenkins hash older
   * regions kept, as {@code hbase:meta}'s {@code 1588230740} still does.
   */
  private static boolean isEncodedRegionName(String s) {
    boolean digits = !s.isEmpty() && s.length() <= 10;
    boolean hex = s.length() == 32;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      digits &= c >= '0' && c <= '9';
      hex &= (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
    }
    return digits || hex;
  }

  /**
   * The table slot of a cached block's file; 0 when not known. A name found only in the older
   * generation is copied into the newer one, so that the names in use outlive the next turn, unless
   * the block leaves with its file ({@code promote} false).
   */
  private static int tableSlot(BlockCacheKey key, boolean promote) {
    String file = key.getHfileName();
    if (file == null) {
      return 0;
    }
    Integer slot = cacheFilesNew.get(file);
    if (slot == null) {
      slot = cacheFilesOld.get(file);
      if (slot == null) {
        return 0;
      }
      if (promote) {
        keepFile(file, slot);
      }
    }
    return slot;
  }

  /**
   * Adds to a counter; the slot is CacheReuse.slot's, written out (the bridge calls no method of
   * another blockscope class).
   */
  private static void countReuse(int table, int kind, int counter) {
    CACHE_REUSE_COUNTS.addAndGet(
        table * CacheReuse.WIDTH + kind * CacheReuse.N_COUNTERS + counter, events(CACHE_REUSE));
  }

  /**
   * {@code LruCachedBlock(BlockCacheKey, Cacheable, long, boolean)} was made: the LRU caches (and
   * the adaptive one) make one for each block that becomes resident, and for the block that
   * replaces a cached one of the same key (which leaves without an eviction).
   */
  public static void cacheInserted(BlockCacheKey key, Cacheable block) {
    if (!measuring) {
      return;
    }
    try {
      countReuse(tableSlot(key, true), kind(block.getBlockType()), CacheReuse.INSERTED);
    } catch (Throwable t) {
      fail(CACHE_REUSE);
    }
  }

  /**
   * {@code LruBlockCache.evictBlock(LruCachedBlock, boolean)} returned {@code freed} bytes ({@code
   * 0}: the block was gone already): {@code capacity} is HBase's own flag for an eviction that made
   * room, as against a file's blocks taken out. A block still of SINGLE priority was never found by
   * a lookup since its insert (a lookup's {@code access} makes it MULTI); an in-memory block stays
   * MEMORY whatever its lookups.
   */
  public static void cacheEvicted(LruCachedBlock block, boolean capacity, long freed) {
    if (!measuring || freed <= 0) {
      return;
    }
    try {
      BlockPriority priority = block.getPriority();
      int hits =
          priority == BlockPriority.SINGLE
              ? CacheReuse.EVICTED_UNREAD
              : priority == BlockPriority.MEMORY ? CacheReuse.EVICTED_HIT_UNKNOWN : -1;
      countEviction(block.getCacheKey(), kind(block.getBuffer().getBlockType()), capacity, hits);
    } catch (Throwable t) {
      fail(CACHE_REUSE);
    }
  }

  /**
   * {@code BucketCache.putIntoBackingMap} returned: a block became resident in the bucket cache.
   * Its key's block type is set by then on HBase 2.6; a key without one is a data block's (with a
   * BucketCache, HBase keeps only data blocks in it).
   */
  public static void bucketInserted(BlockCacheKey key) {
    if (!measuring) {
      return;
    }
    try {
      countReuse(tableSlot(key, true), bucketKind(key), CacheReuse.INSERTED);
    } catch (Throwable t) {
      fail(CACHE_REUSE);
    }
  }

  /**
   * {@code BucketCache.blockEvicted} returned: an entry left the bucket cache, to make room when
   * {@code capacity} (what HBase counts as an eviction). {@code reads} is what {@link
   * #bucketLeaving} found of its hits: {@link #BUCKET_UNREAD}, {@link #BUCKET_READ}, or 0 where
   * nothing is known (an entry that was in the cache before blockscope counted, a slot beyond the
   * tracked ones), counted neither read nor unread.
   */
  public static void bucketEvicted(BlockCacheKey key, boolean capacity, int reads) {
    if (!measuring) {
      return;
    }
    try {
      int hits =
          reads == BUCKET_UNREAD
              ? CacheReuse.EVICTED_UNREAD
              : reads == BUCKET_READ ? -1 : CacheReuse.EVICTED_HIT_UNKNOWN;
      countEviction(key, bucketKind(key), capacity, hits);
    } catch (Throwable t) {
      fail(CACHE_REUSE);
    }
  }

  // ---- BucketCache hits -----------------------------------------------------------------------
  //
  // A bucket entry keeps no trace of its hits (its priority is MULTI from the start), so the
  // bridge keeps two bits per slot of each BucketCache: "an entry was inserted here while
  // blockscope counted" and "a lookup found it since". A slot is the entry's offset divided by the
  // cache's smallest bucket size: two resident entries are at least that far apart, so they never
  // share one. The bits live in pages of BUCKET_PAGE_SLOTS slots, made when a slot of theirs is
  // first used, at most BUCKET_MAX_PAGES per cache (2 bits x 2^25 slots: 8 MB, 160 GB of cache
  // at HBase's smallest default bucket of 5 KB); an entry beyond them is counted hit-unknown.
  // A tracker is an Object[] {WeakReference of the cache, int[] {smallest bucket size},
  // AtomicReferenceArray of AtomicLongArray pages}: JDK types, as everything the bridge holds.

  /** What {@link #bucketLeaving} found: the entry was never found by a lookup since its insert. */
  static final int BUCKET_UNREAD = 1;

  /** What {@link #bucketLeaving} found: a lookup found the entry since its insert. */
  static final int BUCKET_READ = 2;

  static final int BUCKET_PAGE_SLOTS = 1 << 15;
  static final int BUCKET_MAX_PAGES = 1 << 10;

  /** Each BucketCache's tracker, by the cache (identity: BucketCache keeps Object's equals). */
  private static final Map<Object, Object[]> BUCKET_TRACKERS =
      Collections.synchronizedMap(new WeakHashMap<>());

  /** The tracker last used: a region server has one BucketCache, found here without the lock. */
  private static volatile Object[] lastBucketTracker;

  /** {@code BucketEntry.offset()}, found on the first entry seen (package-private in HBase). */
  private static volatile MethodHandle bucketOffset;

  /** The entry {@code BucketEntry.access} just saw on this thread, until its lookup ends. */
  private static final ThreadLocal<Object> BUCKET_ACCESSED = new ThreadLocal<>();

  /**
   * {@code BucketCache.putIntoBackingMap} begins: {@code entry} is about to become resident, so its
   * slot holds an entry without a hit.
   */
  public static void bucketInserting(Object cache, Object entry) {
    if (!measuring) {
      forgetBucketHits();
      return;
    }
    try {
      Object[] tracker = bucketTracker(cache, true);
      long slot = bucketSlot(tracker, entry);
      AtomicLongArray page = bucketPage(tracker, slot, true);
      if (page != null) {
        setBucketBits(page, slot, 3L, 1L);
      }
    } catch (Throwable t) {
      fail(CACHE_REUSE);
    }
  }

  /**
   * {@code BucketEntry.access} returned on this thread: keeps the entry for {@link
   * #bucketLookedUp}.
   */
  public static void bucketEntryAccessed(Object entry) {
    if (lastBucketTracker == null) {
      return; // no cache is tracked
    }
    try {
      BUCKET_ACCESSED.set(entry);
    } catch (Throwable t) {
      fail(CACHE_REUSE);
    }
  }

  /**
   * {@code BucketCache.getBlock} ended on this thread: the entry its lookup found, if any, had a
   * hit. (The entry was read under its offset's lock, released before this: an entry evicted, and
   * its slot filled again, in the few instructions between would lend the new entry this hit.)
   */
  public static void bucketLookedUp(Object cache) {
    try {
      Object entry = BUCKET_ACCESSED.get();
      if (entry == null) {
        return;
      }
      BUCKET_ACCESSED.remove();
      if (!measuring) {
        forgetBucketHits();
        return;
      }
      Object[] tracker = bucketTracker(cache, false);
      long slot = bucketSlot(tracker, entry);
      AtomicLongArray page = bucketPage(tracker, slot, false);
      if (page != null) {
        int word = (int) ((slot & (BUCKET_PAGE_SLOTS - 1)) >>> 5);
        long known = 1L << ((slot & 31) << 1);
        long v = page.get(word);
        if ((v & known) != 0 && (v & (known << 1)) == 0) {
          setBucketBits(page, slot, 2L, 2L);
        }
      }
    } catch (Throwable t) {
      fail(CACHE_REUSE);
    }
  }

  /**
   * {@code BucketCache.blockEvicted} begins, {@code entry} out of the cache's map and its slot not
   * yet freed: whether a lookup found it since its insert ({@link #BUCKET_READ}, {@link
   * #BUCKET_UNREAD}, or 0: unknown); its slot is cleared for the next entry.
   */
  public static int bucketLeaving(Object cache, Object entry) {
    if (!measuring) {
      forgetBucketHits();
      return 0;
    }
    try {
      Object[] tracker = bucketTracker(cache, false);
      long slot = bucketSlot(tracker, entry);
      AtomicLongArray page = bucketPage(tracker, slot, false);
      if (page == null) {
        return 0;
      }
      long bits = setBucketBits(page, slot, 3L, 0L);
      return (bits & 1L) == 0 ? 0 : (bits & 2L) != 0 ? BUCKET_READ : BUCKET_UNREAD;
    } catch (Throwable t) {
      fail(CACHE_REUSE);
      return 0;
    }
  }

  /**
   * Sets the two bits of {@code slot} selected by {@code mask} to {@code value}'s; returns the two
   * bits as they were.
   */
  private static long setBucketBits(AtomicLongArray page, long slot, long mask, long value) {
    int word = (int) ((slot & (BUCKET_PAGE_SLOTS - 1)) >>> 5);
    int shift = (int) ((slot & 31) << 1);
    while (true) {
      long v = page.get(word);
      long n = (v & ~(mask << shift)) | ((value & mask) << shift);
      if (v == n || page.compareAndSet(word, v, n)) {
        return (v >>> shift) & 3L;
      }
    }
  }

  /**
   * The page of {@code slot} in {@code tracker}, made if {@code create}; null when the cache is not
   * tracked ({@code tracker} null) or the slot is not (-1, or beyond the pages).
   */
  @SuppressWarnings("unchecked") // the tracker's parts are written only by bucketTracker
  private static AtomicLongArray bucketPage(Object[] tracker, long slot, boolean create) {
    if (tracker == null || slot < 0 || slot >= (long) BUCKET_PAGE_SLOTS * BUCKET_MAX_PAGES) {
      return null;
    }
    AtomicReferenceArray<AtomicLongArray> pages =
        (AtomicReferenceArray<AtomicLongArray>) tracker[2];
    int p = (int) (slot / BUCKET_PAGE_SLOTS);
    AtomicLongArray page = pages.get(p);
    if (page == null && create) {
      pages.compareAndSet(p, null, new AtomicLongArray(BUCKET_PAGE_SLOTS / 32));
      page = pages.get(p);
    }
    return page;
  }

  /** {@code entry}'s slot in {@code tracker}'s cache, or -1 when the cache is not tracked. */
  private static long bucketSlot(Object[] tracker, Object entry) throws Throwable {
    int size = tracker == null ? 0 : ((int[]) tracker[1])[0];
    if (size <= 0) {
      return -1;
    }
    MethodHandle offset = bucketOffset;
    if (offset == null) {
      Method m = entry.getClass().getDeclaredMethod("offset");
      m.setAccessible(true);
      offset =
          MethodHandles.lookup()
              .unreflect(m)
              .asType(MethodType.methodType(long.class, Object.class));
      bucketOffset = offset;
    }
    return (long) offset.invokeExact(entry) / size;
  }

  /**
   * {@code cache}'s tracker, made if {@code create}. Its slot size is the cache's smallest bucket
   * size, read once from its allocator ({@code BucketCache.bucketAllocator}, {@code
   * BucketAllocator.bucketSizes}); a cache where that cannot be read gets a tracker of size 0,
   * which tracks nothing.
   */
  private static Object[] bucketTracker(Object cache, boolean create) {
    Object[] t = lastBucketTracker;
    if (t != null && ((WeakReference<?>) t[0]).get() == cache) {
      return t;
    }
    synchronized (BUCKET_TRACKERS) {
      t = BUCKET_TRACKERS.get(cache);
      if (t == null && create) {
        t =
            new Object[] {
              new WeakReference<>(cache),
              new int[] {smallestBucket(cache)},
              new AtomicReferenceArray<AtomicLongArray>(BUCKET_MAX_PAGES)
            };
        BUCKET_TRACKERS.put(cache, t);
      }
    }
    if (t != null) {
      lastBucketTracker = t;
    }
    return t;
  }

  /** The cache's smallest bucket size, or 0 where its allocator cannot be read. */
  private static int smallestBucket(Object cache) {
    try {
      Object allocator = declaredField(cache.getClass(), "bucketAllocator").get(cache);
      int[] sizes = (int[]) declaredField(allocator.getClass(), "bucketSizes").get(allocator);
      int least = Integer.MAX_VALUE;
      for (int size : sizes) {
        least = Math.min(least, size);
      }
      return sizes.length == 0 ? 0 : least;
    } catch (Throwable t) {
      fail(CACHE_REUSE);
      return 0;
    }
  }

  private static Field declaredField(Class<?> c, String name) throws NoSuchFieldException {
    for (Class<?> k = c; k != null; k = k.getSuperclass()) {
      try {
        Field f = k.getDeclaredField(name);
        f.setAccessible(true);
        return f;
      } catch (NoSuchFieldException up) {
        // its superclass's, if any
      }
    }
    throw new NoSuchFieldException(c.getName() + "." + name);
  }

  /**
   * No region is measured: hits are not watched meanwhile, so every entry resident now is counted
   * hit-unknown when it leaves; the trackers are dropped and made again at the next insert.
   */
  private static void forgetBucketHits() {
    if (lastBucketTracker != null) {
      synchronized (BUCKET_TRACKERS) {
        BUCKET_TRACKERS.clear();
        lastBucketTracker = null;
      }
    }
  }

  /**
   * A block left a cache: removed with its file, or evicted to make room ({@code capacity}) and
   * then also counted under {@code hits} (unread, hit unknown; -1: read, nothing more).
   */
  private static void countEviction(BlockCacheKey key, int kind, boolean capacity, int hits) {
    int table = tableSlot(key, capacity); // a file's removed blocks need not keep its name
    if (!capacity) {
      countReuse(table, kind, CacheReuse.REMOVED);
      return;
    }
    countReuse(table, kind, CacheReuse.EVICTED);
    if (hits >= 0) {
      countReuse(table, kind, hits);
    }
  }

  /**
   * One counter of a table, summed over the table slots of that name (one, unless none): {@code
   * slot} is the counter's {@link CacheReuse} slot.
   */
  public static long cacheReuse(String table, int slot) {
    String[] tables = cacheTables();
    long n = 0;
    for (int t = 0; t < tables.length; t++) {
      if (table.equals(tables[t])) {
        n += CACHE_REUSE_COUNTS.get(t * CacheReuse.WIDTH + slot);
      }
    }
    return n;
  }

  private static int bucketKind(BlockCacheKey key) {
    BlockType type = key.getBlockType();
    return type == null ? CostLayout.KIND_DATA : kind(type);
  }

  // ---- helpers --------------------------------------------------------------------------------

  private static long nanoTimeCost() {
    long least = Long.MAX_VALUE;
    for (int i = 0; i < 20_000; i++) {
      long a = System.nanoTime();
      long b = System.nanoTime();
      least = Math.min(least, b - a);
    }
    return least;
  }

  private static int kind(BlockType type) {
    int[] map = kindByBlockType;
    int o = type.ordinal();
    return o < map.length ? map[o] : CostLayout.KIND_OTHER;
  }

  /**
   * How many times a probe counts the event it sees: 1, unless a drill acts on it ({@link #drill}).
   */
  private static int events(int probe) {
    IntUnaryOperator d = drill;
    return d == null ? 1 : d.applyAsInt(probe);
  }

  private static void fail(int probe) {
    FAILURES.incrementAndGet(probe);
  }
}
