package dev.onceguard.checkout;

import io.quarkus.security.Authenticated;
import jakarta.transaction.Transactional;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

import java.util.List;
import io.quarkus.runtime.annotations.RegisterForReflection;

@RegisterForReflection
@Path("/api/products")
@Authenticated
@Produces(MediaType.APPLICATION_JSON)
public class CatalogResource {

    private final CatalogRows rows;

    public CatalogResource(CatalogRows rows) {
        this.rows = rows;
    }

    @GET
    @Transactional
    public List<ProductView> list() {
        return rows.inCatalogOrder().stream().map(ProductView::of).toList();
    }
}
