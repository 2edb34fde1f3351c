package io.lazysession.serializer.codec;

import com.esotericsoftware.kryo.kryo5.Registration;
import com.esotericsoftware.kryo.kryo5.io.Output;
import com.esotericsoftware.kryo.kryo5.util.DefaultClassResolver;
import io.lazysession.serializer.ClassNotAllowedException;

/**
 * A Kryo class resolver that refuses, by name and before {@code Class.forName}, any class outside the
 * allow-list. Classes registered with an id in {@link KryoFactory} are JDK value types and never reach
 * the name path. Writing refuses them too, so a value that could not be read back is never stored. One
 * per Kryo instance, like Kryo itself: not thread-safe.
 */
final class AllowListClassResolver extends DefaultClassResolver {
  private final ClassAllowList allowList;

  AllowListClassResolver(ClassAllowList allowList) {
    this.allowList = allowList;
  }

  @Override
  protected Class<?> getTypeByName(String className) {
    if (!allowList.isAllowed(className)) {
      throw new ClassNotAllowedException(ClassAllowList.refusedName(className));
    }
    return super.getTypeByName(className);
  }

  @Override
  protected void writeName(Output output, Class type, Registration registration) {
    if (!allowList.isAllowed(type)) {
      throw new ClassNotAllowedException(ClassAllowList.refusedName(type.getName()));
    }
    super.writeName(output, type, registration);
  }
}
