package io.lazysession.it.bench.shop;

import java.io.Serial;
import java.io.Serializable;
import java.util.Objects;

/** A postal address. Immutable. */
public final class Address implements Serializable {
  @Serial
  private static final long serialVersionUID = 1L;

  private final String name;
  private final String street;
  private final String postalCode;
  private final String city;
  private final String country;

  public Address(String name, String street, String postalCode, String city, String country) {
    this.name = name;
    this.street = street;
    this.postalCode = postalCode;
    this.city = city;
    this.country = country;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Address other && name.equals(other.name) && street.equals(other.street)
        && postalCode.equals(other.postalCode) && city.equals(other.city)
        && country.equals(other.country);
  }

  @Override
  public int hashCode() {
    return Objects.hash(name, street, postalCode, city, country);
  }
}
