package io.blockscope.encoding.impostor;

import org.apache.hadoop.hbase.coprocessor.RegionCoprocessor;

/**
 * A region coprocessor with the registrar's simple name in another package, which registers
 * nothing: {@code EncodingGuardTest} shows that a region server's report cannot tell the two apart.
 */
public final class EncodingRegistrar implements RegionCoprocessor {}
