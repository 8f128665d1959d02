package dev.onceguard.checkout;

import com.github.benmanes.caffeine.cache.Cache;
import dev.onceguard.checkout.CatalogRows.CatalogPrice;
import dev.onceguard.platform.RequestPathCaches;
import jakarta.enterprise.context.ApplicationScoped;

import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The catalog entries this replica has read, by product id, so that pricing an order takes no statement of its own. An
 * entry may be outdated (another replica loaded a new catalog file): an order priced from it is claimed only if its
 * entries are still the catalog's, which the claim's own statement checks ({@link CatalogRows#unchanged}); an outdated
 * entry is then forgotten and read again. Only products that exist are kept, so unknown ids cannot fill it.
 */
@ApplicationScoped
public class CatalogCache {

    /** More products than any catalog this service has been given; past it the least used are read again. */
    private static final int MAX_ENTRIES = 10_000;

    private final Cache<String, CatalogPrice> entries = RequestPathCaches.newBuilder().maximumSize(MAX_ENTRIES).build();
    private final CatalogRows rows;

    public CatalogCache(CatalogRows rows) {
        this.rows = rows;
    }

    /** The entries of these products, by id (unknown ones absent); read from the database only for those not kept. */
    Map<String, CatalogPrice> prices(List<String> productIds) {
        Map<String, CatalogPrice> kept = entries.getAllPresent(productIds);
        if (kept.size() == productIds.size()) {
            return kept;
        }
        Map<String, CatalogPrice> read = rows.prices(productIds.stream().filter(id -> !kept.containsKey(id)).toList());
        entries.putAll(read);
        Map<String, CatalogPrice> all = new HashMap<>(kept);
        all.putAll(read);
        return all;
    }

    void forget(Collection<String> productIds) {
        entries.invalidateAll(productIds);
    }
}
