package io.changestream.alerts.destination;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The one rule for failure reasons (issue 21, item 9): a reason never carries a URL's path or query, because for
 * Slack, MS Teams and Google Chat the path is the credential and any query may hold a token. Reasons are made from
 * exception texts, and Jetty's carry the request: an early EOF or a protocol violation prints the connection's
 * exchange as {@code HttpRequest[POST /services/T000/B000/XXXX HTTP/1.1]}, and a request through a proxy prints the
 * absolute URL. {@link #reason} rewrites
 * <ul>
 *   <li>every {@code http://} / {@code https://} URL to its scheme, host and port, the rest masked
 *       ({@code https://hooks.slack.com/********}, user info {@code ********@}, a query {@code ?********});</li>
 *   <li>every request line {@code METHOD /path HTTP/x} to {@code METHOD /******** HTTP/x}.</li>
 * </ul>
 * Applied where a reason enters the DLQ, {@code /status}, the retry hand-off and logs. Stateless; any thread.
 */
public final class Redaction {

    /** {@code scheme://authority} then, up to white space or a quote, the path, query and fragment. */
    private static final Pattern URL = Pattern.compile("(?i)\\b(https?)://([^\\s/?#\"'<>]*)([/?#][^\\s\"'<>]*)?");
    /** A request line as Jetty's {@code HttpRequest.toString()} and access-log style texts print it. */
    private static final Pattern REQUEST_LINE = Pattern.compile(
            "\\b(GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS|TRACE)(\\s+)/\\S*(\\s+HTTP/)");

    private Redaction() {
    }

    /** The reason with every URL's path, query and user info and every request line's path masked; null stays null. */
    public static String reason(String reason) {
        if (reason == null || reason.isEmpty()) {
            return reason;
        }
        String out = reason;
        if (out.indexOf("://") >= 0) {
            out = replaceUrls(out);
        }
        if (out.contains(" HTTP/")) {
            out = REQUEST_LINE.matcher(out).replaceAll("$1$2/" + Secrets.MASK + "$3");
        }
        return out;
    }

    private static String replaceUrls(String text) {
        Matcher m = URL.matcher(text);
        StringBuilder out = new StringBuilder(text.length());
        while (m.find()) {
            String authority = m.group(2);
            int at = authority.lastIndexOf('@');
            StringBuilder url = new StringBuilder(m.group(1)).append("://");
            if (at >= 0) {
                url.append(Secrets.MASK).append('@');
            }
            url.append(authority, at + 1, authority.length());
            String rest = m.group(3);
            if (rest != null && !rest.equals("/")) {
                if (rest.charAt(0) == '/') {
                    url.append('/').append(Secrets.MASK);
                } else if (rest.charAt(0) == '?') {
                    url.append('?').append(Secrets.MASK);
                } else {
                    url.append('#').append(Secrets.MASK);
                }
            } else if (rest != null) {
                url.append(rest);
            }
            m.appendReplacement(out, Matcher.quoteReplacement(url.toString()));
        }
        m.appendTail(out);
        return out.toString();
    }
}
