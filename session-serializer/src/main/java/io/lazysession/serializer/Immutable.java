package io.lazysession.serializer;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a class whose instances never change once constructed, nor does anything they reference:
 * a value of exactly this class, read from the session store and not set again, is then taken as
 * unchanged at save without being encoded again to compare (the check that catches changes made in
 * place). Marking a class that does change loses those changes: they are not saved unless the
 * application sets the attribute again.
 *
 * <p>Applies to the annotated class only, not to its subclasses (a subclass may add state); the same
 * can be said without the annotation with {@link AttributeSerializer.Builder#immutableTypes} (the
 * setting {@code lazysession.immutable-types}). {@code net.jcip.annotations.Immutable} and {@code
 * com.google.errorprone.annotations.Immutable} are honoured the same way; docs/user-guide.md lists
 * what else counts as immutable without any marking (records of immutable values, {@code List.of},
 * JDK value types, enums).
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
public @interface Immutable {}
