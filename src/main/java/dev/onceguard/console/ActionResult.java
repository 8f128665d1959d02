package dev.onceguard.console;

import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriBuilder;

/** What one admin action did: its audit outcome and detail, and the notice the operator sees after it. */
record ActionResult(AuditOutcome outcome, AdminNotice notice, String detail) {

    /** Post/Redirect/Get: back to {@code page}, which shows the notice about {@code target}. */
    Response seeOther(String page, String target) {
        return Response.seeOther(UriBuilder.fromPath(page)
                .queryParam("notice", notice.code())
                .queryParam("target", target)
                .build()).build();
    }
}
