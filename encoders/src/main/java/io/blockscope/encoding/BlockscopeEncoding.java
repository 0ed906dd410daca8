package io.blockscope.encoding;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.Map;
import org.apache.hadoop.hbase.io.encoding.DataBlockEncoder;
import org.apache.hadoop.hbase.io.encoding.DataBlockEncoding;
import org.apache.hadoop.hbase.util.VersionInfo;

/**
 * Makes {@code BLOCKSCOPE_V1} a {@link DataBlockEncoding} of this JVM: an explicit, opt-in step
 * that every JVM reading or writing such files must take (region servers and master through {@link
 * EncodingRegistrar} / {@link EncodingGuard}, clients and tools by calling {@link #register()}).
 *
 * <p>HBase 2.6 has no registry for encodings: {@code DataBlockEncoding} is an enum, parsed by name
 * ({@code valueOf}, from column family descriptors and HFile metadata), looked up by the id stored
 * in every encoded block ({@code getEncodingById}, through its static {@code idArray}), and its
 * encoder is checked by class name ({@code isCorrectEncoder}). Registration adds one constant to
 * the enum of the running JVM: a new instance (ordinal 5, name {@value #NAME}, id {@value #ID})
 * written into {@code $VALUES} and {@code idArray}, with its encoder set, and the enum caches of
 * {@code java.lang.Class} cleared so that {@code valueOf} sees it. Nothing in HBase 2.6.1 switches
 * on this enum or keys a map by it outside tests ({@code EnumUsesTest} checks HBase's bytecode;
 * Phoenix 5.2.1's was checked once by hand), so the extra ordinal is never used as an index.
 *
 * <p>Before touching anything it checks the HBase version (2.5.x or 2.6.x) and every field it
 * writes (names, types, modifiers, the five built-in constants and their ids); if any differs it
 * refuses with one {@link IllegalStateException} naming what differs, and changes nothing.
 */
public final class BlockscopeEncoding {
  /** The encoding's name, as in {@code DATA_BLOCK_ENCODING => 'BLOCKSCOPE_V1'}. */
  public static final String NAME = "BLOCKSCOPE_V1";

  /**
   * The id stored in every block. HBase 2.6 uses 0, 2, 3, 4 and 7 and reserves 1, 5 and 6; ids go
   * up to 127.
   */
  public static final short ID = 64;

  private static volatile DataBlockEncoding registered;

  private BlockscopeEncoding() {}

  /**
   * The registered constant; registers it first if this JVM has not. Registration holds the monitor
   * of {@code DataBlockEncoding.class}, which every class loader's copy of this class shares: two
   * copies registering at once (the registrar on the server classpath and a table's jar) make one
   * constant.
   */
  // the one monitor every copy of this class shares; HBase never locks DataBlockEncoding.class
  @SuppressWarnings("LockOnNonEnclosingClassLiteral")
  public static DataBlockEncoding register() {
    if (registered != null) {
      return registered;
    }
    synchronized (DataBlockEncoding.class) {
      for (DataBlockEncoding e : DataBlockEncoding.values()) {
        if (e.name().equals(NAME)) {
          registered = e; // another class loader's copy of this class registered it
          return e;
        }
      }
      checkVersion(VersionInfo.getVersion());
      Internals in = Internals.check();
      registered = in.add(NAME, ID, new BlockscopeV1Encoder());
      return registered;
    }
  }

  /** Whether this JVM has the encoding, registered by any copy of this class. */
  public static boolean isRegistered() {
    for (DataBlockEncoding e : DataBlockEncoding.values()) {
      if (e.name().equals(NAME)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Refuses an HBase this was not built and tested against: 2.6.x (built against 2.6.1) and 2.5.x,
   * whose {@code DataBlockEncoding}, {@code HFileDataBlockEncoderImpl} and encoder interfaces
   * compile to the same bytecode as 2.6.1's (on 2.5.13 and 2.6.4:
   * HBaseInternalsAcrossVersionsTest).
   */
  static void checkVersion(String version) {
    if (version == null || !(version.startsWith("2.6.") || version.startsWith("2.5."))) {
      throw new IllegalStateException(
          "blockscope cannot register "
              + NAME
              + ": it relies on "
              + "the internals of HBase 2.5 and 2.6 (DataBlockEncoding's fields, the HFile block "
              + "reader's encoder check), and this is HBase "
              + version);
    }
  }

  /** The fields of {@code DataBlockEncoding} and {@code Enum} registration writes, checked. */
  static final class Internals {
    private static final String[] BUILT_IN = {
      "NONE", "PREFIX", "DIFF", "FAST_DIFF", "ROW_INDEX_V1"
    };
    private static final short[] BUILT_IN_IDS = {0, 2, 3, 4, 7};

    final UnsafeAccess unsafe;
    final Field values;
    final Field idArray;
    final Field id;
    final Field idInBytes;
    final Field encoderCls;
    final Field encoder;
    final Field name;
    final Field ordinal;
    final Field enumConstants;
    final Field enumConstantDirectory;

    private Internals(UnsafeAccess unsafe, Field[] f) {
      this.unsafe = unsafe;
      values = f[0];
      idArray = f[1];
      id = f[2];
      idInBytes = f[3];
      encoderCls = f[4];
      encoder = f[5];
      name = f[6];
      ordinal = f[7];
      enumConstants = f[8];
      enumConstantDirectory = f[9];
    }

    static Internals check() {
      StringBuilder wrong = new StringBuilder();
      Class<DataBlockEncoding> d = DataBlockEncoding.class;
      Field[] f = {
        field(d, "$VALUES", DataBlockEncoding[].class, true, wrong),
        field(d, "idArray", DataBlockEncoding[].class, true, wrong),
        field(d, "id", short.class, false, wrong),
        field(d, "idInBytes", byte[].class, false, wrong),
        field(d, "encoderCls", String.class, false, wrong),
        field(d, "encoder", DataBlockEncoder.class, false, wrong),
        field(Enum.class, "name", String.class, false, wrong),
        field(Enum.class, "ordinal", int.class, false, wrong),
        field(Class.class, "enumConstants", Object[].class, false, wrong),
        field(Class.class, "enumConstantDirectory", Map.class, false, wrong)
      };
      DataBlockEncoding[] all = DataBlockEncoding.values();
      String[] names = Arrays.stream(all).map(Enum::name).toArray(String[]::new);
      if (all.length > BUILT_IN.length && names[BUILT_IN.length].equals(NAME)) {
        // registered already (by another copy of this class): check the built-ins only
        names = Arrays.copyOf(names, BUILT_IN.length);
        all = Arrays.copyOf(all, BUILT_IN.length);
      }
      if (!Arrays.equals(names, BUILT_IN)) {
        wrong
            .append(" the encodings are ")
            .append(Arrays.toString(names))
            .append(", expected ")
            .append(Arrays.toString(BUILT_IN))
            .append(';');
      } else {
        for (int i = 0; i < all.length; i++) {
          if (all[i].getId() != BUILT_IN_IDS[i]) {
            wrong
                .append(' ')
                .append(names[i])
                .append(" has id ")
                .append(all[i].getId())
                .append(", expected ")
                .append(BUILT_IN_IDS[i])
                .append(';');
          }
        }
      }
      UnsafeAccess unsafe = null;
      try {
        unsafe = new UnsafeAccess();
      } catch (ReflectiveOperationException | RuntimeException e) {
        wrong.append(" sun.misc.Unsafe is not reachable (").append(e).append(");");
      }
      if (wrong.length() > 0) {
        throw new IllegalStateException(
            "blockscope cannot register "
                + NAME
                + " on this JVM:"
                + wrong
                + " (built against HBase 2.6.1 on Java 17); nothing was changed");
      }
      return new Internals(unsafe, f);
    }

    private static Field field(
        Class<?> owner, String n, Class<?> type, boolean isStatic, StringBuilder wrong) {
      try {
        Field f = owner.getDeclaredField(n);
        if (f.getType() != type || Modifier.isStatic(f.getModifiers()) != isStatic) {
          wrong
              .append(' ')
              .append(owner.getSimpleName())
              .append('.')
              .append(n)
              .append(" is ")
              .append(f)
              .append(';');
        }
        return f;
      } catch (NoSuchFieldException e) {
        wrong
            .append(' ')
            .append(owner.getSimpleName())
            .append(" has no field ")
            .append(n)
            .append(';');
        return null;
      }
    }

    DataBlockEncoding add(String n, short newId, DataBlockEncoder enc) {
      return add(n, newId, enc, () -> {});
    }

    /**
     * {@link #add(String, short, DataBlockEncoder)}, running {@code afterWrite} once the id and the
     * constants are written and before they are checked: what a test fails there, as a check that
     * HBase does not pass would, must be undone.
     */
    DataBlockEncoding add(String n, short newId, DataBlockEncoder enc, Runnable afterWrite) {
      UnsafeAccess u = unsafe;
      DataBlockEncoding[] byId =
          (DataBlockEncoding[])
              u.getObject(u.staticFieldBase(idArray), u.staticFieldOffset(idArray));
      if (newId < 0 || newId >= byId.length || byId[newId] != null) {
        throw new IllegalStateException(
            "blockscope cannot register "
                + n
                + ": id "
                + newId
                + " is taken or out of range in this HBase; nothing was changed");
      }
      DataBlockEncoding[] before = DataBlockEncoding.values();
      DataBlockEncoding e;
      try {
        e = (DataBlockEncoding) u.allocateInstance(DataBlockEncoding.class);
      } catch (InstantiationException x) {
        throw new IllegalStateException("blockscope cannot register " + n + ": " + x, x);
      }
      u.putObject(e, u.objectFieldOffset(name), n);
      u.putInt(e, u.objectFieldOffset(ordinal), before.length);
      u.putShort(e, u.objectFieldOffset(id), newId);
      u.putObject(
          e, u.objectFieldOffset(idInBytes), new byte[] {(byte) (newId >> 8), (byte) newId});
      u.putObject(e, u.objectFieldOffset(encoderCls), enc.getClass().getName());
      u.putObject(e, u.objectFieldOffset(encoder), enc);
      DataBlockEncoding[] after = Arrays.copyOf(before, before.length + 1);
      after[before.length] = e;
      try {
        // the id first: from here on a block carrying the id resolves, before the name does
        byId[newId] = e;
        setValues(after);
        afterWrite.run();
        if (DataBlockEncoding.valueOf(n) != e
            || DataBlockEncoding.getEncodingById(newId) != e
            || !DataBlockEncoding.isCorrectEncoder(enc, newId)) {
          throw new IllegalStateException(
              "HBase does not resolve it (valueOf / getEncodingById / isCorrectEncoder)");
        }
        return e;
      } catch (RuntimeException | LinkageError x) {
        // leave the enum as it was: no id, no constant, caches cleared again
        byId[newId] = null;
        setValues(before);
        throw new IllegalStateException(
            "blockscope could not register " + n + " (" + x + "); the change was undone", x);
      }
    }

    /** Makes {@code all} the enum's constants and clears the JDK's caches of them. */
    private void setValues(DataBlockEncoding[] all) {
      UnsafeAccess u = unsafe;
      u.putObjectVolatile(u.staticFieldBase(values), u.staticFieldOffset(values), all);
      u.putObjectVolatile(DataBlockEncoding.class, u.objectFieldOffset(enumConstants), null);
      u.putObjectVolatile(
          DataBlockEncoding.class, u.objectFieldOffset(enumConstantDirectory), null);
    }
  }
}
