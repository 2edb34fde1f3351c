package io.lazysession.it.kotlinshop

import java.math.BigDecimal
import java.time.Instant
import java.time.LocalDate
import java.time.LocalDateTime
import kotlin.time.ExperimentalTime
import kotlin.uuid.ExperimentalUuidApi
import kotlin.uuid.Uuid

/**
 * Twenty-one ordinary values a Kotlin shop keeps in its sessions, each built as Kotlin code builds it
 * (the standard library chooses the class: `emptyList()` is `kotlin.collections.EmptyList`,
 * `listOf(x)` a JDK singleton list, `buildList` a `kotlin.collections.builders.ListBuilder`, ...).
 * Every call builds them anew, so that a node compares what it reads with values it built itself.
 * The list is docs/compatibility.md's "Kotlin" table.
 */
object KotlinSessionValues {
  private val line = CartLine("sku-1", 2, BigDecimal("9.90"))
  private val otherLine = CartLine("sku-2", 1, BigDecimal("24.00"))

  /** Each value by attribute name, in the order of the docs' table. */
  fun all(): Map<String, Any> = linkedMapOf(
    "cart.empty" to Cart(),
    "cart.oneLine" to Cart(lines = listOf(line)),
    "cart.full" to Cart(listOf(line, otherLine), setOf("WELCOME", "SPRING"), mapOf("gift" to "yes")),
    "checkout" to Checkout(
      CheckoutStep.PAYMENT,
      Cart(listOf(line)),
      Address("1 Main St", "Springfield", "12345"),
      Instant.parse("2026-01-02T03:04:05.678Z"),
      LocalDate.of(2026, 1, 9),
      listOf("WELCOME" to BigDecimal("5.00")),
    ),
    "preferences" to Preferences(),
    "emptyList" to emptyList<String>(),
    "emptySet" to emptySet<String>(),
    "emptyMap" to emptyMap<String, Int>(),
    "listOf" to listOf("a", "b", "c"),
    "setOf" to setOf(3, 1, 2),
    "mapOf" to mapOf("a" to 1, "b" to 2),
    "mutableListOf" to mutableListOf(1, 2, 3),
    "buildList" to buildList { add("x"); add("y") },
    "buildSet" to buildSet { add("x"); add("y") },
    "buildMap" to buildMap { put("k", 1); put("l", 2) },
    "pair" to ("sku-1" to 2),
    "triple" to Triple("EUR", 2, BigDecimal("19.80")),
    "enum" to CheckoutStep.REVIEW,
    "object" to NoPreference,
    "dataObject" to Guest,
    "lastVisit" to LocalDateTime.of(2026, 1, 2, 3, 4, 5),
  )

  /**
   * The values whose identity Kotlin code relies on (`when (x) { NoPreference -> ... }`, `===`): an
   * `object`, a `data object` and the standard library's empty collections.
   */
  fun singletons(): Map<String, Any> = linkedMapOf(
    "object" to NoPreference,
    "dataObject" to Guest,
    "emptyList" to emptyList<String>(),
    "emptySet" to emptySet<String>(),
    "emptyMap" to emptyMap<String, Int>(),
  )

  /**
   * Other value types of the standard library that Java serialization stores, less common in
   * sessions: a boxed `Result`, `kotlin.time.Instant`, `kotlin.uuid.Uuid`, and a `by lazy`
   * property (stored as its computed value, as Java serialization stores it).
   */
  @OptIn(ExperimentalTime::class, ExperimentalUuidApi::class)
  fun others(): Map<String, Any> = linkedMapOf(
    "results" to listOf(Result.success(1), Result.success("two")),
    "kotlinInstant" to kotlin.time.Instant.fromEpochSeconds(1_767_323_045, 678_000_000),
    "uuid" to Uuid.parse("550e8400-e29b-41d4-a716-446655440000"),
    "invoice" to Invoice(listOf(line, otherLine)),
  )
}
