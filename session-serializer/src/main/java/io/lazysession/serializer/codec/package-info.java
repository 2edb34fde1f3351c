@NullMarked
package io.lazysession.serializer.codec;

import org.jspecify.annotations.NullMarked;
