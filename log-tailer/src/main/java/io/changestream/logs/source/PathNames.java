package io.changestream.logs.source;

/**
 * Validates the pipeline FQN and run id before either becomes a path component or a URL segment: no {@code .} or
 * {@code ..}, no {@code /} or {@code \}, no control characters, not empty, at most 512 characters. Stateless.
 */
public final class PathNames {

    private static final int MAX_LENGTH = 512;

    private PathNames() {
    }

    /** The reason {@code value} is not a safe name, or null when it is. */
    public static String problem(String what, String value) {
        if (value == null || value.isEmpty()) {
            return what + " is empty";
        }
        if (value.length() > MAX_LENGTH) {
            return what + " is longer than " + MAX_LENGTH + " characters";
        }
        if (value.equals(".") || value.contains("..")) {
            return what + " must not contain '..'";
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == '/' || c == '\\') {
                return what + " must not contain path separators";
            }
            if (Character.isISOControl(c)) {
                return what + " must not contain control characters";
            }
        }
        return null;
    }

    /** {@code value} when safe. @throws IllegalArgumentException naming the problem */
    public static String require(String what, String value) {
        String problem = problem(what, value);
        if (problem != null) {
            throw new IllegalArgumentException(problem);
        }
        return value;
    }
}
