package dev.vigil.bridge;

import java.util.ArrayList;
import java.util.List;

/** A unified diff of two transcripts (lines), with three lines of context, as {@code diff -u} writes it. */
public final class Diff {
  private static final int CONTEXT = 3;

  private Diff() {}

  /** The diff from {@code a} to {@code b}, empty when they are equal. */
  public static String unified(String aName, List<String> a, String bName, List<String> b) {
    if (a.equals(b)) {
      return "";
    }
    int n = a.size();
    int m = b.size();
    int[][] lcs = new int[n + 1][m + 1];
    for (int i = n - 1; i >= 0; i--) {
      for (int j = m - 1; j >= 0; j--) {
        lcs[i][j] = a.get(i).equals(b.get(j)) ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
      }
    }
    // the edit script: ' ' same, '-' only in a, '+' only in b; with the line numbers in a and b
    List<char[]> ops = new ArrayList<>();
    List<String> text = new ArrayList<>();
    List<int[]> at = new ArrayList<>();
    int i = 0;
    int j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && a.get(i).equals(b.get(j))) {
        ops.add(new char[] {' '});
        text.add(a.get(i));
        at.add(new int[] {i++, j++});
      } else if (j < m && (i == n || lcs[i][j + 1] >= lcs[i + 1][j])) {
        ops.add(new char[] {'+'});
        text.add(b.get(j));
        at.add(new int[] {i, j++});
      } else {
        ops.add(new char[] {'-'});
        text.add(a.get(i));
        at.add(new int[] {i++, j});
      }
    }
    StringBuilder out = new StringBuilder("--- " + aName + "\n+++ " + bName + "\n");
    int k = 0;
    while (k < ops.size()) {
      if (ops.get(k)[0] == ' ') {
        k++;
        continue;
      }
      int from = Math.max(0, k - CONTEXT);
      int to = k;
      int quiet = 0;
      while (to < ops.size() && quiet <= 2 * CONTEXT) {
        quiet = ops.get(to)[0] == ' ' ? quiet + 1 : 0;
        to++;
      }
      to = Math.min(ops.size(), to - Math.max(0, quiet - CONTEXT));
      int aStart = at.get(from)[0];
      int bStart = at.get(from)[1];
      int aLen = 0;
      int bLen = 0;
      for (int x = from; x < to; x++) {
        aLen += ops.get(x)[0] != '+' ? 1 : 0;
        bLen += ops.get(x)[0] != '-' ? 1 : 0;
      }
      out.append("@@ -").append(aStart + 1).append(',').append(aLen).append(" +").append(bStart + 1).append(',')
          .append(bLen).append(" @@\n");
      for (int x = from; x < to; x++) {
        out.append(ops.get(x)[0]).append(text.get(x)).append('\n');
      }
      k = to;
    }
    return out.toString();
  }
}
