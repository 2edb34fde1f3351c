package io.lazysession.it.kotlinshop

import io.lazysession.serializer.AttributeSerializer
import io.lazysession.serializer.ClassAllowList
import io.lazysession.serializer.codec.CodecKind
import io.lazysession.serializer.compress.Compression
import java.math.BigDecimal
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.params.ParameterizedTest
import org.junit.jupiter.params.provider.EnumSource

/**
 * What a property added to a Kotlin data class gets when a session stored before the deploy is
 * read (docs/serializer-evolution.md): no constructor of the class runs, so not its Kotlin default
 * but the JVM's (null, even in a non-null type), except with Kryo for a class whose properties all
 * have defaults (Kotlin gives it a constructor with no parameters, which Kryo calls). The old
 * deploy's bytes are played by swapping the class names (same length) in uncompressed bytes.
 */
class KotlinNewPropertyTest {
  private fun serializer(codec: CodecKind): AttributeSerializer = AttributeSerializer.builder()
    .codec(codec).compression(Compression.none())
    .allowList(ClassAllowList.builder().allowPackage("io.lazysession.it.kotlinshop").build())
    .build()

  /** Reads what the old deploy stored for `old`, as the new deploy whose class is named `new`. */
  private fun readAfterDeploy(codec: CodecKind, old: Any, from: String, to: String): Any? {
    val serializer = serializer(codec)
    return serializer.deserialize(replace(serializer.serialize(old), from, to))
  }

  @ParameterizedTest
  @EnumSource(CodecKind::class)
  fun deserialize_propertyAddedWithDefault_readsNullInANonNullType(codec: CodecKind) {
    val price = readAfterDeploy(codec, OldPrice(BigDecimal("9.90")), "OldPric", "NewPric") as NewPrice

    assertThat(price.amount).isEqualByComparingTo("9.90")
    assertThat(price.currency as String?).isNull()
  }

  @ParameterizedTest
  @EnumSource(CodecKind::class)
  fun deserialize_everyPropertyWithDefault_kryoRunsTheNoArgumentConstructor(codec: CodecKind) {
    val rate = readAfterDeploy(codec, OldRate(7), "OldRat", "NewRat") as NewRate

    assertThat(rate.percent).isEqualTo(7)
    assertThat(rate.currency as String?).isEqualTo(if (codec == CodecKind.KRYO) "EUR" else null)
  }

  @ParameterizedTest
  @EnumSource(CodecKind::class)
  fun deserialize_propertyAddedNullableWithDefaultInGetter_readsTheDefault(codec: CodecKind) {
    val offer = readAfterDeploy(codec, OldOffer(BigDecimal("5")), "OldOffe", "NewOffe") as NewOffer

    assertThat(offer.currency).isEqualTo("EUR")
  }

  private fun replace(bytes: ByteArray, from: String, to: String): ByteArray {
    val f = from.toByteArray(Charsets.US_ASCII)
    val t = to.toByteArray(Charsets.US_ASCII)
    val out = bytes.clone()
    var found = 0
    var i = 0
    while (i + f.size <= out.size) {
      if ((f.indices).all { out[i + it] == f[it] }) {
        t.copyInto(out, i)
        found++
        i += f.size
      } else {
        i++
      }
    }
    check(found > 0) { "$from not found in the stored bytes" }
    return out
  }
}
