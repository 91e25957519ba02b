package io.changestream.alerts.destination.http;

import io.changestream.alerts.destination.DestinationConfigException;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Locale;

/**
 * The SSRF guard: an outbound URL must be http(s) and every address its host resolves to must be public. Loopback,
 * private (10/8, 172.16/12, 192.168/16, fc00::/7), carrier-grade NAT (100.64/10), link-local (169.254/16 — cloud
 * metadata — and fe80::/10), multicast, the any-local address and every other RFC 6890 special-purpose block that
 * is not globally reachable ({@link #REFUSED_V4}, {@link #REFUSED_V6}: 192.0.0.0/24, 198.18.0.0/15, the TEST-NETs,
 * IPv4-compatible {@code ::/96}, Teredo/ORCHID {@code 2001::/23}, documentation…) are refused, and so is an IPv6
 * address that embeds a refused IPv4 one (IPv4-mapped, NAT64 {@code 64:ff9b::/96}, 6to4 {@code 2002::/16}), unless
 * {@link HttpSettings#allowPrivateAddresses()} is set. A host that does not resolve passes (DNS may be down for a
 * moment; the request then fails as a transient connect error). Stateless; any thread.
 *
 * <p>DNS rebinding: {@link HttpSender} resolves through {@link #checkedAddresses} and connects only to the
 * addresses it returned, so the host is looked up once and the checked address is the one connected to
 * (docs/decisions/1202). With a proxy ({@link HttpSettings#proxy()}) the guard checks the target explicitly before
 * the request is handed to the proxy, which resolves it again.
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
        String host = checkUrl(uri, field);
        if (allowPrivate) {
            return;
        }
        try {
            checkedAddresses(host, field);
        } catch (UnknownHostException e) {
            // nothing to connect to: the request itself fails with a transient (RETRY) connect error
        }
    }

    /**
     * Checks a URL's form only (http(s), a host) and returns the host; the addresses are checked when they are
     * resolved ({@link #checkedAddresses}).
     *
     * @throws DestinationConfigException when the URL is not http(s) or has no host
     */
    public String checkUrl(URI uri, String field) {
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https")) {
            throw new DestinationConfigException(field, "must be an http or https URL, was a '" + scheme + "' URL");
        }
        String host = uri.getHost();
        if (host == null || host.isBlank()) {
            throw new DestinationConfigException(field, "has no host");
        }
        return host;
    }

    /**
     * Resolves a host once and returns its addresses if every one of them is allowed — the addresses a client
     * must then connect to (no second lookup a rebinding DNS server could answer differently).
     *
     * @throws DestinationConfigException naming {@code field} when an address is refused
     * @throws UnknownHostException       when the host does not resolve
     */
    public List<InetAddress> checkedAddresses(String host, String field) throws UnknownHostException {
        String bare = host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
        InetAddress[] addresses = InetAddress.getAllByName(bare);
        if (!allowPrivate) {
            for (InetAddress address : addresses) {
                if (isRefused(address)) {
                    throw new DestinationConfigException(field, "host '" + host + "' resolves to "
                            + address.getHostAddress() + ", a loopback/private/link-local/multicast/special-purpose "
                            + "address (refused; see destinations.allowPrivateAddresses)");
                }
            }
        }
        return List.of(addresses);
    }

    /** Whether an address is one the guard refuses. */
    public static boolean isRefused(InetAddress address) {
        if (address.isLoopbackAddress() || address.isAnyLocalAddress() || address.isLinkLocalAddress()
                || address.isSiteLocalAddress() || address.isMulticastAddress()) {
            return true;
        }
        byte[] b = address.getAddress();
        if (address instanceof Inet4Address) {
            return REFUSED_V4.stream().anyMatch(r -> r.contains(b));
        }
        if (address instanceof Inet6Address) {
            if (REFUSED_V6.stream().anyMatch(r -> r.contains(b))) {
                return true;
            }
            byte[] embedded = embeddedIpv4(b);
            return embedded != null && REFUSED_V4.stream().anyMatch(r -> r.contains(embedded));
        }
        return true;
    }

    /**
     * The IPv4 address an IPv6 address carries, when it carries one a router would reach: IPv4-mapped
     * {@code ::ffff:a.b.c.d} (the JDK usually hands those over as IPv4 already), NAT64 {@code 64:ff9b::a.b.c.d}
     * (RFC 6052) and 6to4 {@code 2002:aabb:ccdd::} (RFC 3056). IPv4-compatible {@code ::a.b.c.d} is refused as a
     * whole ({@code ::/96} is in {@link #REFUSED_V6}).
     */
    private static byte[] embeddedIpv4(byte[] b) {
        boolean mapped = (b[10] & 0xff) == 0xff && (b[11] & 0xff) == 0xff;
        for (int i = 0; i < 10; i++) {
            mapped &= b[i] == 0;
        }
        if (mapped || NAT64.contains(b)) {
            return new byte[] {b[12], b[13], b[14], b[15]};
        }
        if ((b[0] & 0xff) == 0x20 && (b[1] & 0xff) == 0x02) {
            return new byte[] {b[2], b[3], b[4], b[5]};
        }
        return null;
    }

    private static final Range NAT64 = Range.of("64:ff9b::", 96);

    /**
     * IPv4 ranges refused besides loopback, link-local, private, multicast and any-local: the RFC 6890 registry
     * entries that are not globally reachable or not unicast (RFC 6890 §2.2.2, updated by RFC 8190/7723).
     */
    static final List<Range> REFUSED_V4 = List.of(
            Range.of("0.0.0.0", 8),          // "this network"
            Range.of("10.0.0.0", 8),         // private
            Range.of("100.64.0.0", 10),      // carrier-grade NAT (shared address space)
            Range.of("127.0.0.0", 8),        // loopback
            Range.of("169.254.0.0", 16),     // link-local, cloud metadata
            Range.of("172.16.0.0", 12),      // private
            Range.of("192.0.0.0", 24),       // IETF protocol assignments (incl. DS-Lite, NAT64 discovery)
            Range.of("192.0.2.0", 24),       // TEST-NET-1
            Range.of("192.88.99.0", 24),     // 6to4 relay anycast (deprecated, RFC 7526)
            Range.of("192.168.0.0", 16),     // private
            Range.of("198.18.0.0", 15),      // benchmarking
            Range.of("198.51.100.0", 24),    // TEST-NET-2
            Range.of("203.0.113.0", 24),     // TEST-NET-3
            Range.of("224.0.0.0", 4),        // multicast
            Range.of("240.0.0.0", 4));       // reserved, limited broadcast

    /** IPv6 ranges refused besides loopback, link-local, site-local, multicast and unspecified (RFC 6890 et seq.). */
    static final List<Range> REFUSED_V6 = List.of(
            Range.of("::", 96),              // IPv4-compatible (deprecated, RFC 4291), :: and ::1 included
            Range.of("64:ff9b:1::", 48),     // local-use NAT64 (RFC 8215)
            Range.of("100::", 64),           // discard-only (RFC 6666)
            Range.of("2001::", 23),          // IETF protocol assignments: Teredo, ORCHID, benchmarking (2001:2::/48)
            Range.of("2001:db8::", 32),      // documentation
            Range.of("3fff::", 20),          // documentation (RFC 9637)
            Range.of("5f00::", 16),          // SRv6 SIDs (RFC 9602)
            Range.of("fc00::", 7),           // unique local
            Range.of("fe80::", 10),          // link-local
            Range.of("fec0::", 10),          // site-local (deprecated)
            Range.of("ff00::", 8));          // multicast

    /** One CIDR block. */
    record Range(byte[] prefix, int bits) {

        static Range of(String literal, int bits) {
            try {
                // literals only: getByName does not look anything up for an address literal
                return new Range(InetAddress.getByName(literal).getAddress(), bits);
            } catch (UnknownHostException e) {
                throw new IllegalArgumentException(literal, e);
            }
        }

        boolean contains(byte[] address) {
            if (address.length != prefix.length) {
                return false;
            }
            int full = bits / 8;
            for (int i = 0; i < full; i++) {
                if (address[i] != prefix[i]) {
                    return false;
                }
            }
            int rest = bits % 8;
            if (rest == 0) {
                return true;
            }
            int mask = (0xff << (8 - rest)) & 0xff;
            return (address[full] & mask) == (prefix[full] & mask);
        }
    }
}
