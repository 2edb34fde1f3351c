package io.lazysession.sample.shop;

import java.io.Serializable;
import java.util.Map;

/** Display preferences of the signed-in user. */
public record Preferences(String currency, String locale, int pageSize, String theme,
    Map<String, String> extra) implements Serializable {}
