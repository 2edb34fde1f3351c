package io.lazysession.redis;

import io.lazysession.testing.RedisVersion;
import io.lettuce.core.api.sync.RedisCommands;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Counts the commands a Redis server executed, from {@code INFO commandstats} deltas. Redis counts
 * the commands a script runs as well as the script call itself, so a delta shows both; the
 * {@code info} calls made to measure are left out.
 */
final class CommandStats {
  private static final Pattern LINE = Pattern.compile("cmdstat_([^:]+):calls=(\\d+)");

  private final RedisCommands<String, String> commands;

  CommandStats(RedisCommands<String, String> commands) {
    this.commands = commands;
  }

  /**
   * The command a repository's find arrives as: FCALL of find.lua's function where Redis has
   * functions (7.0 on), else EVALSHA.
   */
  String findCommand() {
    return RedisVersion.parse(commands.info("server")).atLeast(7, 0) ? "fcall" : "evalsha";
  }

  Map<String, Long> snapshot() {
    Map<String, Long> calls = new TreeMap<>();
    Matcher matcher = LINE.matcher(commands.info("commandstats"));
    while (matcher.find()) {
      // Redis 7 counts subcommands apart (object|encoding), earlier versions by command (object):
      // OBJECT is only ever used for its ENCODING, so both are counted under the later name.
      String name = matcher.group(1).equals("object") ? "object|encoding" : matcher.group(1);
      calls.merge(name, Long.parseLong(matcher.group(2)), Long::sum);
    }
    return calls;
  }

  /** The commands executed while {@code action} ran, by name, without zero entries. */
  Map<String, Long> during(Runnable action) {
    Map<String, Long> before = snapshot();
    action.run();
    Map<String, Long> after = snapshot();
    Map<String, Long> delta = new TreeMap<>();
    after.forEach((name, count) -> {
      long difference = count - before.getOrDefault(name, 0L);
      if (name.equals("info")) {
        difference -= 1; // the snapshot taken before the action
      }
      if (difference != 0) {
        delta.put(name, difference);
      }
    });
    return delta;
  }
}
