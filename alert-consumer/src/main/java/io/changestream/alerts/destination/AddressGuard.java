package io.changestream.alerts.destination;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.Locale;

/**
 * The SSRF guard: an outbound URL must be http(s) and every address its host resolves to must be public. Loopback,
 * private (10/8, 172.16/12, 192.168/16, fc00::/7), carrier-grade NAT (100.64/10), link-local (169.254/16 — cloud
 * metadata — and fe80::/10), multicast and the any-local address are refused unless
 * {@link HttpSettings#allowPrivateAddresses()} is set. A host that does not resolve passes (DNS may be down for a
 * moment; the request then fails as a transient connect error). Stateless; any thread.
 *
 * <p>The check runs right before each request; a host that re-resolves to another address between check and
 * connect (DNS rebinding) is not caught — see docs/decisions/0502.
 */
public final class AddressGuard {

    private final boolean allowPrivate;

    public AddressGuard(boolean allowPrivate) {
        this.allowPrivate = allowPrivate;
    }

    /**
     * Checks a URL.
     *
     * @param field the config field the URL came from, for the error
     * @throws DestinationConfigException when the URL is not http(s), has no host, or resolves to a refused address
     */
    public void check(URI uri, String field) {
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https")) {
            throw new DestinationConfigException(field, "must be an http or https URL, was '" + uri + "'");
        }
        String host = uri.getHost();
        if (host == null || host.isBlank()) {
            throw new DestinationConfigException(field, "has no host: '" + uri + "'");
        }
        if (allowPrivate) {
            return;
        }
        InetAddress[] addresses;
        try {
            addresses = InetAddress.getAllByName(host);
        } catch (UnknownHostException e) {
            // nothing to connect to: the request itself fails with a transient (RETRY) connect error
            return;
        }
        for (InetAddress address : addresses) {
            if (isRefused(address)) {
                throw new DestinationConfigException(field, "host '" + host + "' resolves to " + address.getHostAddress()
                        + ", a loopback/private/link-local/multicast address (refused; see http.allowPrivateAddresses)");
            }
        }
    }

    /** Whether an address is one the guard refuses. */
    public static boolean isRefused(InetAddress address) {
        if (address.isLoopbackAddress() || address.isAnyLocalAddress() || address.isLinkLocalAddress()
                || address.isSiteLocalAddress() || address.isMulticastAddress()) {
            return true;
        }
        byte[] b = address.getAddress();
        if (address instanceof Inet4Address) {
            int first = b[0] & 0xff;
            int second = b[1] & 0xff;
            return first == 0 || (first == 100 && second >= 64 && second <= 127) || first >= 240;
        }
        if (address instanceof Inet6Address) {
            if ((b[0] & 0xfe) == 0xfc) {
                return true;
            }
            boolean mapped = true;
            for (int i = 0; i < 10; i++) {
                mapped &= b[i] == 0;
            }
            if (mapped && (b[10] & 0xff) == 0xff && (b[11] & 0xff) == 0xff) {
                try {
                    return isRefused(InetAddress.getByAddress(new byte[] {b[12], b[13], b[14], b[15]}));
                } catch (UnknownHostException e) {
                    return true;
                }
            }
        }
        return false;
    }
}
