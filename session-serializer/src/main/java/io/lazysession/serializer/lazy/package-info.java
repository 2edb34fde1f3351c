@NullMarked
package io.lazysession.serializer.lazy;

import org.jspecify.annotations.NullMarked;
