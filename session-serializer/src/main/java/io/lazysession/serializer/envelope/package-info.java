@NullMarked
package io.lazysession.serializer.envelope;

import org.jspecify.annotations.NullMarked;
