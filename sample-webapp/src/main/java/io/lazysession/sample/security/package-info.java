/** Spring Security for the sample shop: form login, in-memory users, CSRF, logout. */
@NullMarked
package io.lazysession.sample.security;

import org.jspecify.annotations.NullMarked;
