@NullMarked
package io.lazysession.serializer.measure;

import org.jspecify.annotations.NullMarked;
