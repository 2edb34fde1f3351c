package io.lazysession.it.kotlinshop

import java.io.Serializable
import java.math.BigDecimal

/*
 * A data class before and after a deploy that added a property with a default. The names differ in
 * their first letters and have the same length, so that a test can swap them in stored bytes.
 */

data class OldPrice(val amount: BigDecimal) : Serializable {
  companion object {
    private const val serialVersionUID = 1L
  }
}

data class NewPrice(val amount: BigDecimal, val currency: String = "EUR") : Serializable {
  companion object {
    private const val serialVersionUID = 1L
  }
}

/** Every property has a default: Kotlin then also compiles a constructor with no parameters. */
data class OldRate(val percent: Int = 0) : Serializable {
  companion object {
    private const val serialVersionUID = 1L
  }
}

data class NewRate(val percent: Int = 0, val currency: String = "EUR") : Serializable {
  companion object {
    private const val serialVersionUID = 1L
  }
}

/** The fix: the new property nullable, its default applied where it is read. */
data class OldOffer(val amount: BigDecimal) : Serializable {
  companion object {
    private const val serialVersionUID = 1L
  }
}

data class NewOffer(val amount: BigDecimal, private val currencyOrNull: String? = null) : Serializable {
  val currency: String get() = currencyOrNull ?: "EUR"

  companion object {
    private const val serialVersionUID = 1L
  }
}
