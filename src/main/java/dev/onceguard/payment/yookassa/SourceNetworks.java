package dev.onceguard.payment.yookassa;

import io.netty.handler.ipfilter.IpFilterRuleType;
import io.netty.handler.ipfilter.IpSubnetFilterRule;
import io.netty.util.NetUtil;

import java.net.InetSocketAddress;
import java.util.List;

/**
 * The networks a provider sends its notifications from, as addresses and CIDRs (IPv4 and IPv6), and whether an
 * address is in one of them (Netty's subnet rules match). Only address literals are read: a name is refused, never
 * resolved.
 */
final class SourceNetworks {

    private final List<IpSubnetFilterRule> networks;

    private SourceNetworks(List<IpSubnetFilterRule> networks) {
        this.networks = networks;
    }

    /** @throws IllegalArgumentException for an entry that is not an address or a CIDR */
    static SourceNetworks of(List<String> entries) {
        return new SourceNetworks(entries.stream().map(String::trim).filter(e -> !e.isEmpty())
                .map(SourceNetworks::network).toList());
    }

    boolean contains(String address) {
        if (address == null || !NetUtil.isValidIpV4Address(address) && !NetUtil.isValidIpV6Address(address)) {
            return false;
        }
        InetSocketAddress socket = new InetSocketAddress(NetUtil.createInetAddressFromIpAddressString(address), 0);
        return networks.stream().anyMatch(network -> network.matches(socket));
    }

    private static IpSubnetFilterRule network(String entry) {
        int slash = entry.indexOf('/');
        String address = slash < 0 ? entry : entry.substring(0, slash);
        boolean v4 = NetUtil.isValidIpV4Address(address);
        if (!v4 && !NetUtil.isValidIpV6Address(address)) {
            throw new IllegalArgumentException("not an address or a CIDR: " + entry);
        }
        int bits = v4 ? 32 : 128;
        if (slash >= 0) {
            int maximum = bits;
            try {
                bits = Integer.parseInt(entry.substring(slash + 1));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("not a CIDR: " + entry, e);
            }
            if (bits < 0 || bits > maximum) {
                throw new IllegalArgumentException("prefix length out of range: " + entry);
            }
        }
        return new IpSubnetFilterRule(NetUtil.createInetAddressFromIpAddressString(address), bits,
                IpFilterRuleType.ACCEPT);
    }
}
