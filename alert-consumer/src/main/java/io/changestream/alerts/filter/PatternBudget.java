package io.changestream.alerts.filter;

import java.util.ArrayDeque;
import java.util.Deque;

/**
 * An upper estimate of the RE2/J program a pattern compiles to, read from the pattern text before it is compiled:
 * RE2/J expands counted repetitions ({@code x{1000}} is a thousand copies of {@code x}), so a 34-character pattern
 * with nested counts compiles to 10<sup>12</sup> instructions and exhausts the heap inside
 * {@code Pattern.compile}. Each atom counts 1 (a character, an escape, a class), a group the sum of its
 * alternatives plus 2 (capture start and end), {@code |} and {@code *+?} add 1, {@code {n}} / {@code {n,}} / {@code {n,m}} multiply by twice the larger count
 * plus one. Saturates just above the limit. Stateless; any thread.
 */
final class PatternBudget {

    private PatternBudget() {
    }

    /** The estimate, or {@code limit + 1} as soon as it exceeds {@code limit}. */
    static long estimate(String pattern, long limit) {
        long cap = limit + 1;
        Deque<long[]> frames = new ArrayDeque<>(); // {sum of the group so far, size of its last atom}
        long[] frame = {0, 0};
        int i = 0;
        int n = pattern.length();
        while (i < n) {
            char c = pattern.charAt(i);
            long atom = -1;
            if (c == '\\') {
                char next = i + 1 < n ? pattern.charAt(i + 1) : 0;
                if (next == 'Q') {
                    int end = pattern.indexOf("\\E", i + 2);
                    int stop = end < 0 ? n : end;
                    frame[0] = Math.min(cap, frame[0] + (stop - i - 2));
                    frame[1] = 1;
                    i = end < 0 ? n : end + 2;
                    continue;
                }
                if ((next == 'p' || next == 'P' || next == 'x') && i + 2 < n && pattern.charAt(i + 2) == '{') {
                    int close = pattern.indexOf('}', i + 2);
                    i = close < 0 ? n : close + 1;
                } else {
                    i += 2;
                }
                atom = 1;
            } else if (c == '[') {
                i = classEnd(pattern, i);
                atom = 1;
            } else if (c == '(') {
                frames.push(frame);
                frame = new long[] {0, 0};
                i++;
                continue;
            } else if (c == ')') {
                long group = Math.min(cap, frame[0] + 2); // capture start and end
                frame = frames.isEmpty() ? new long[] {0, 0} : frames.pop();
                atom = group;
                i++;
            } else if (c == '|') {
                frame[0] = Math.min(cap, frame[0] + 1);
                frame[1] = 0;
                i++;
                continue;
            } else if (c == '*' || c == '+' || c == '?') {
                frame[0] = Math.min(cap, frame[0] + 1);
                i++;
                continue;
            } else if (c == '{' && repeatEnd(pattern, i) > 0) {
                int end = repeatEnd(pattern, i);
                long count = largestCount(pattern.substring(i + 1, end));
                long factor = Math.min(cap, 2 * count + 1);
                long repeated = frame[1] >= cap || factor >= cap || frame[1] > cap / factor ? cap : frame[1] * factor;
                frame[0] = frame[0] >= cap || repeated >= cap ? cap : Math.min(cap, frame[0] - frame[1] + repeated);
                frame[1] = repeated;
                i = end + 1;
                continue;
            } else {
                atom = 1;
                i++;
            }
            frame[0] = Math.min(cap, frame[0] + atom);
            frame[1] = atom;
        }
        long total = Math.min(cap, frame[0] + 4); // fail, match and the unanchored-search prefix
        while (!frames.isEmpty()) {
            total = Math.min(cap, total + frames.pop()[0]);
        }
        return Math.min(cap, total);
    }

    private static int classEnd(String p, int open) {
        int i = open + 1;
        if (i < p.length() && p.charAt(i) == '^') {
            i++;
        }
        if (i < p.length() && p.charAt(i) == ']') {
            i++;
        }
        while (i < p.length() && p.charAt(i) != ']') {
            i += p.charAt(i) == '\\' ? 2 : 1;
        }
        return i + 1;
    }

    /** Index of the {@code }} closing a counted repetition at {@code open}, or -1 when the brace is a literal. */
    private static int repeatEnd(String p, int open) {
        int i = open + 1;
        int digits = 0;
        while (i < p.length() && (Character.isDigit(p.charAt(i)) || p.charAt(i) == ',')) {
            digits += Character.isDigit(p.charAt(i)) ? 1 : 0;
            i++;
        }
        return i < p.length() && p.charAt(i) == '}' && digits > 0 ? i : -1;
    }

    private static long largestCount(String counts) {
        long largest = 1;
        for (String part : counts.split(",", -1)) {
            if (!part.isEmpty()) {
                largest = Math.max(largest, part.length() > 9 ? Long.MAX_VALUE / 4 : Long.parseLong(part) + 1);
            }
        }
        return largest;
    }
}
