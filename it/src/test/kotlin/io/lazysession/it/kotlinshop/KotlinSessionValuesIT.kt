package io.lazysession.it.kotlinshop

import io.lazysession.redis.LazyRedisSessionRepository
import io.lazysession.testing.RedisServerExtension
import java.math.BigDecimal
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.AfterAll
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.extension.RegisterExtension
import org.junit.jupiter.params.ParameterizedTest
import org.junit.jupiter.params.provider.ValueSource
import org.springframework.boot.WebApplicationType
import org.springframework.boot.builder.SpringApplicationBuilder
import org.springframework.context.ConfigurableApplicationContext

/**
 * A Kotlin Spring Boot application on two nodes sharing one Redis: each value of
 * [KotlinSessionValues] is stored by one node and read by the other, with no lazysession setting
 * (codec `kryo`, the default) and with `lazysession.codec=jdk`. Spring Session Data Redis stores
 * and reads back all of them, so must lazysession.
 */
class KotlinSessionValuesIT {
  companion object {
    @JvmField
    @RegisterExtension
    val redis: RedisServerExtension = RedisServerExtension.standalone()

    private val started = mutableMapOf<String, List<ConfigurableApplicationContext>>()

    /** Two nodes per codec setting, started once for the class. */
    private fun nodes(codec: String): List<LazyRedisSessionRepository> =
      started.getOrPut(codec) { listOf(start(codec), start(codec)) }
        .map { it.getBean(LazyRedisSessionRepository::class.java) }

    private fun start(codec: String): ConfigurableApplicationContext {
      val settings = mutableListOf(
        "server.port=0", "spring.main.banner-mode=off", "spring.data.redis.url=" + redis.url(),
        "lazysession.namespace=kotlin-$codec-" + ProcessHandle.current().pid(),
      )
      if (codec != "default") {
        settings += "lazysession.codec=$codec"
      }
      return SpringApplicationBuilder(KotlinShopApplication::class.java)
        .web(WebApplicationType.SERVLET).properties(*settings.toTypedArray()).run()
    }

    @JvmStatic
    @AfterAll
    fun stop() {
      started.values.flatten().forEach { it.close() }
    }
  }

  /** What became of a value stored on `writer` and read on `reader`: "equal", or what went wrong. */
  private fun roundTrip(
    writer: LazyRedisSessionRepository, reader: LazyRedisSessionRepository,
    name: String, value: Any, expected: Any, same: Boolean,
  ): String {
    val session = writer.createSession()
    try {
      session.setAttribute(name, value)
      writer.save(session)
    } catch (e: RuntimeException) {
      return "refused: " + e.message
    }
    val read: Any? = reader.findById(session.id)?.getAttribute(name)
    return when {
      read == null -> "read back as null"
      same && read !== expected -> "a new instance of ${read.javaClass.name}"
      read != expected -> "read back unequal: $read (${read.javaClass.name})"
      else -> if (same) "same" else "equal"
    }
  }

  /**
   * Stores each value of `values()` on one node and reads it on the other, comparing it with the
   * value as the reading node builds it (its identity when `same`); the values that did not come
   * back so, with what became of them.
   */
  private fun notReadBack(
    codec: String, values: () -> Map<String, Any>, same: Boolean = false,
  ): Map<String, String> {
    val (one, two) = nodes(codec)
    val built = values()
    return values().mapValues { (name, value) ->
      roundTrip(one, two, name, value, built.getValue(name), same)
    }.filterValues { it != if (same) "same" else "equal" }
  }

  /** Every value but the plain `object`, whose equality is its identity (the tests below). */
  @ParameterizedTest
  @ValueSource(strings = ["default", "jdk"])
  fun everyValue_storedOnOneNode_readEqualOnTheOther(codec: String) {
    assertThat(notReadBack(codec, { KotlinSessionValues.all().filterKeys { it != "object" } }))
      .isEmpty()
  }

  @ParameterizedTest
  @ValueSource(strings = ["default", "jdk"])
  fun otherStandardLibraryValues_storedOnOneNode_readEqualOnTheOther(codec: String) {
    assertThat(notReadBack(codec, KotlinSessionValues::others)).isEmpty()
  }

  /** Stored as its computed value (Java serialization writes a `Lazy` as its value only). */
  @ParameterizedTest
  @ValueSource(strings = ["default", "jdk"])
  fun lazyProperty_storedOnOneNode_readsTheComputedValueOnTheOther(codec: String) {
    val (one, two) = nodes(codec)
    val session = one.createSession()
    session.setAttribute("invoice", Invoice(listOf(CartLine("sku-1", 3, BigDecimal("2.50")))))
    one.save(session)

    val read = two.findById(session.id)!!.getAttribute<Invoice>("invoice")!!
    assertThat(read.total).isEqualByComparingTo("7.50")
  }

  @Test
  fun singletons_defaultSettings_keepTheirIdentityOnTheOtherNode() {
    assertSingletonsKeepTheirIdentity("default")
  }

  @Test
  fun singletons_jdkCodec_keepTheirIdentityOnTheOtherNode() {
    assertSingletonsKeepTheirIdentity("jdk")
  }

  private fun assertSingletonsKeepTheirIdentity(codec: String) {
    assertThat(notReadBack(codec, KotlinSessionValues::singletons, same = true)).isEmpty()
  }
}
