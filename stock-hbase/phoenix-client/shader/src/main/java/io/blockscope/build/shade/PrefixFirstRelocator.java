package io.blockscope.build.shade;

import java.lang.reflect.Field;
import org.apache.maven.plugins.shade.relocation.Relocator;
import org.apache.maven.plugins.shade.relocation.SimpleRelocator;

/**
 * A {@link SimpleRelocator} that answers "no" at once for a path outside its pattern, and asks the
 * relocator itself for every other path and for everything else.
 */
final class PrefixFirstRelocator implements Relocator {
  /*
   * Why. maven-shade-plugin 3.6.0's SimpleRelocator.canRelocatePath(path) is, after dropping a
   * ".class" suffix and a leading '/':
   *
   *     isIncluded(path) && !isExcluded(path) && path.startsWith(pathPattern)
   *
   * isExcluded matches the path against every exclude with plexus-utils' SelectorUtils.matchPath,
   * which splits both into tokens on every call. The shader's remapper asks every relocation about
   * every class name and string constant of every class it copies. Phoenix's client rules have 20
   * relocations and 46 excludes (13 on org/ alone), so most of those questions are answered by
   * matching excludes against a path that the last test, the prefix, rules out anyway: a thread
   * dump of the 159 MB Phoenix client's build sat in SimpleRelocator.isExcluded ->
   * SelectorUtils.match.
   *
   * The conjunction has no side effects, so testing its last term first changes no answer: a path
   * that does not start with the pattern is refused here, and any other path gets the relocator's
   * own answer. canRelocateClass(name) is "!rawString && no '/' in name && canRelocatePath(name with
   * '.' as '/')", refused here the same way. A raw-string relocation matches a regular expression
   * anywhere in the path, with no prefix to test: it is used as it is, as is any relocator that is
   * not a SimpleRelocator or whose fields this version does not have (the build is then as slow as
   * before, never different).
   */
  private final Relocator relocator;
  private final String pathPattern;

  PrefixFirstRelocator(Relocator relocator, String pathPattern) {
    this.relocator = relocator;
    this.pathPattern = pathPattern;
  }

  /** {@code r} asked its prefix first, or {@code r} itself where that cannot be done. */
  static Relocator of(Relocator r) {
    if (r.getClass() != SimpleRelocator.class) {
      return r;
    }
    try {
      if ((boolean) field("rawString").get(r)) {
        return r;
      }
      return new PrefixFirstRelocator(r, (String) field("pathPattern").get(r));
    } catch (ReflectiveOperationException | RuntimeException e) {
      return r;
    }
  }

  private static Field field(String name) throws NoSuchFieldException {
    Field f = SimpleRelocator.class.getDeclaredField(name);
    f.setAccessible(true);
    return f;
  }

  /** The path as SimpleRelocator tests it: without a ".class" suffix or a leading '/'. */
  private boolean outsidePattern(String path) {
    int end = path.endsWith(".class") ? path.length() - ".class".length() : path.length();
    int start = end > 0 && path.charAt(0) == '/' ? 1 : 0;
    return !path.startsWith(pathPattern, start) || end - start < pathPattern.length();
  }

  @Override
  public boolean canRelocatePath(String path) {
    return !outsidePattern(path) && relocator.canRelocatePath(path);
  }

  @Override
  public boolean canRelocateClass(String className) {
    return className.indexOf('/') < 0
        && !outsidePattern(className.replace('.', '/'))
        && relocator.canRelocateClass(className);
  }

  @Override
  public String relocatePath(String path) {
    return relocator.relocatePath(path);
  }

  @Override
  public String relocateClass(String className) {
    return relocator.relocateClass(className);
  }

  @Override
  public String applyToSourceContent(String sourceContent) {
    return relocator.applyToSourceContent(sourceContent);
  }
}
