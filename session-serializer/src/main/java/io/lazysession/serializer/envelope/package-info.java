/**
 * The envelope: the few header bytes in front of every stored attribute value that say which format
 * version, codec and compression (and dictionary) wrote it, so that every node reads every value
 * whatever it is configured to write. The format is docs/envelope-format.md, pinned by golden vectors.
 */
@NullMarked
package io.lazysession.serializer.envelope;

import org.jspecify.annotations.NullMarked;
