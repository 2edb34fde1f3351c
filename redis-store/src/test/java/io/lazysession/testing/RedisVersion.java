package io.lazysession.testing;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The version a Redis server reports about itself ({@code redis_version} in {@code INFO server}), so
 * that a test decides what the server can do by what it says, whatever started it (a container, the
 * embedded 6.2 binary, an explicit URL). Immutable.
 */
public record RedisVersion(int major, int minor, int patch) implements Comparable<RedisVersion> {
  private static final Pattern VERSION =
      Pattern.compile("redis_version:(\\d+)\\.(\\d+)(?:\\.(\\d+))?");

  /** The version named by an answer to {@code INFO server} (or {@code INFO}). */
  public static RedisVersion parse(String infoServer) {
    Matcher matcher = VERSION.matcher(infoServer);
    if (!matcher.find()) {
      throw new IllegalStateException("INFO server names no redis_version: " + infoServer);
    }
    return new RedisVersion(Integer.parseInt(matcher.group(1)), Integer.parseInt(matcher.group(2)),
        matcher.group(3) == null ? 0 : Integer.parseInt(matcher.group(3)));
  }

  /** Whether this version is {@code major.minor} or later. */
  public boolean atLeast(int major, int minor) {
    return compareTo(new RedisVersion(major, minor, 0)) >= 0;
  }

  @Override
  public int compareTo(RedisVersion other) {
    int byMajor = Integer.compare(major, other.major);
    if (byMajor != 0) {
      return byMajor;
    }
    int byMinor = Integer.compare(minor, other.minor);
    return byMinor != 0 ? byMinor : Integer.compare(patch, other.patch);
  }

  @Override
  public String toString() {
    return major + "." + minor + "." + patch;
  }
}
