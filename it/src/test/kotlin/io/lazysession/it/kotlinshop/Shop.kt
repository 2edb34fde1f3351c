package io.lazysession.it.kotlinshop

import java.io.Serializable
import java.math.BigDecimal
import java.time.Instant
import java.time.LocalDate

/** What a Kotlin shop keeps in its sessions: data classes with the defaults Kotlin code gives them. */
enum class CheckoutStep { ADDRESS, PAYMENT, REVIEW }

data class CartLine(val sku: String, val quantity: Int, val price: BigDecimal) : Serializable

/** `emptyList()` until something is added, as most Kotlin code starts a collection property. */
data class Cart(
  val lines: List<CartLine> = emptyList(),
  val coupons: Set<String> = emptySet(),
  val notes: Map<String, String> = emptyMap(),
) : Serializable

data class Address(val street: String, val city: String, val zip: String) : Serializable

data class Checkout(
  val step: CheckoutStep,
  val cart: Cart,
  val shipTo: Address?,
  val startedAt: Instant,
  val delivery: LocalDate,
  /** One pair per applied discount: the code and the amount it took off. */
  val discounts: List<Pair<String, BigDecimal>> = emptyList(),
) : Serializable

data class Preferences(
  val theme: String = "light",
  val recentSearches: List<String> = listOf(),
  val flags: Map<String, Boolean> = mapOf(),
) : Serializable

/** A singleton, serializable as IntelliJ writes it (with `readResolve`). */
object NoPreference : Serializable {
  private fun readResolve(): Any = NoPreference
}

sealed interface Visitor : Serializable

/**
 * A `data object`: the compiler adds `equals` (by type), `hashCode` and `toString`, not
 * `readResolve`, which IntelliJ's inspection asks for here too.
 */
data object Guest : Visitor {
  private fun readResolve(): Any = Guest
}

/** A property computed on first use (`by lazy`): its delegate is a field of the class. */
data class Invoice(val lines: List<CartLine>) : Serializable {
  val total: BigDecimal by lazy {
    lines.fold(BigDecimal.ZERO) { sum, line -> sum + line.price * line.quantity.toBigDecimal() }
  }
}
