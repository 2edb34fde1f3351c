package org.acme.shared;

import java.io.Serializable;

/** A session class from an organisation's shared library, outside the application's package. */
public record Money(long cents, String currency) implements Serializable {}
