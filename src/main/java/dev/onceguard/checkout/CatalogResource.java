package dev.onceguard.checkout;

import io.quarkus.security.Authenticated;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

import java.util.List;

@Path("/api/products")
@Authenticated
@Produces(MediaType.APPLICATION_JSON)
public class CatalogResource {

    @GET
    public List<ProductView> list() {
        return Product.listInCatalogOrder().stream().map(ProductView::of).toList();
    }
}
