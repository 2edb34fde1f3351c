package io.lazysession.serializer.bench;

import java.io.Serializable;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

/**
 * A session unlike both the reference session and the synthetic corpus of the built-in dictionary: an
 * airline crew app with abbreviated field names, doubles and primitive arrays, a random binary blob and
 * non-Latin text. Used to check that a generic dictionary does not only pay off on data like its
 * corpus. Deterministic: every call returns equal values.
 */
final class UnlikeSession {
  static final String PACKAGE = "io.lazysession.serializer.bench";

  record Leg(String fltNo, String iataFrom, String iataTo, OffsetDateTime std, Duration blk,
      double fuelKg, int pax) implements Serializable {}

  record Roster(String crewId, char rank, List<Leg> legs, short[] dutyMins) implements Serializable {}

  static final class WxCache implements Serializable {
    private static final long serialVersionUID = 1L;
    double[] qnhHpa;
    float[] windKt;
    Map<Integer, Double> tempByFl = new TreeMap<>();

    @Override
    public boolean equals(Object o) {
      return o instanceof WxCache w && java.util.Arrays.equals(qnhHpa, w.qnhHpa)
          && java.util.Arrays.equals(windKt, w.windKt) && tempByFl.equals(w.tempByFl);
    }

    @Override
    public int hashCode() {
      return tempByFl.hashCode();
    }
  }

  private UnlikeSession() {}

  static Map<String, Object> create() {
    Random random = new Random(7_3_1995);
    Map<String, Object> session = new LinkedHashMap<>();
    String[] airports = {"NRT", "HND", "FRA", "MUC", "ZRH", "OSL", "KEF", "YVR"};
    List<Leg> legs = new ArrayList<>();
    OffsetDateTime t = OffsetDateTime.of(2025, 3, 9, 5, 40, 0, 0, ZoneOffset.ofHours(9));
    for (int i = 0; i < 6; i++) {
      legs.add(new Leg("NH" + (100 + random.nextInt(900)), airports[random.nextInt(8)],
          airports[random.nextInt(8)], t.plusHours(7L * i), Duration.ofMinutes(60 + random.nextInt(700)),
          4_000 + random.nextDouble() * 60_000, random.nextInt(400)));
    }
    short[] duty = new short[14];
    for (int i = 0; i < duty.length; i++) {
      duty[i] = (short) random.nextInt(900);
    }
    session.put("rstr", new Roster("C" + random.nextInt(100_000), 'F', legs, duty));
    WxCache wx = new WxCache();
    wx.qnhHpa = random.doubles(24, 980, 1040).toArray();
    wx.windKt = new float[24];
    for (int i = 0; i < 24; i++) {
      wx.windKt[i] = random.nextFloat() * 80;
      wx.tempByFl.put(50 + 10 * i, -56.5 + random.nextDouble() * 70);
    }
    session.put("wx", wx);
    byte[] blob = new byte[180];
    random.nextBytes(blob);
    session.put("sigBlob", blob);
    session.put("memoJa", "本日の乗務は定刻通り。成田での折り返し時間は四十五分、機内食の積み込みに注意。");
    session.put("memoDe", "Übergabe: Kabinendruck-Warnung auf Sitz 14C geprüft, keine Störung; Enteisung in MUC nötig.");
    session.put("seq", random.longs(20).toArray());
    Map<Integer, Double> ratios = new LinkedHashMap<>();
    for (int i = 0; i < 12; i++) {
      ratios.put(random.nextInt(), random.nextGaussian());
    }
    session.put("ratios", ratios);
    session.put("ack", Boolean.TRUE);
    session.put("gwp", 1.0e6 * random.nextDouble());
    session.put("lastLeg", legs.get(5));
    session.put("csum", Long.toUnsignedString(random.nextLong(), 36));
    session.put("tz", ZoneOffset.ofHours(9));
    return session;
  }
}
