package io.lazysession.sample.shop;

import java.io.Serializable;
import java.time.Instant;
import java.util.Set;

/** Who is signed in, shaped like a security context: principal, authorities, when and how. */
public record SignedInUser(String username, String displayName, String email, Set<String> roles,
    Instant authenticatedAt, String authenticationMethod) implements Serializable {}
