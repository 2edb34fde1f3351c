@NullMarked
package io.lazysession.serializer.compress;

import org.jspecify.annotations.NullMarked;
