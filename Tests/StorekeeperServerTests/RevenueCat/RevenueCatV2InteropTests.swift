import Foundation
import HummingbirdTesting
import StorekeeperTestSupport
import Testing

@Suite("RevenueCat REST API v2 through RevenueCat's generated Python client")
struct RevenueCatV2InteropTests {
    @Test(
        "revenuecat-client 2.0.0 reads every v2 read route with its own models, paging through every list",
        .enabled(if: InteropPython.shouldRun, InteropPython.skipMessage))
    func generatedClientReadsEveryRoute() async throws {
        let python = try InteropPython.require()
        try await RevenueCatV2Fixture.run(.sqlite, .live) { harness, client in
            try await RevenueCatV2Fixture.seed(harness, client)
            let port = try #require(client.port)
            let base = "http://127.0.0.1:\(port)/revenuecat/v2"
            let finished = try await ChildProcess.run(
                python, ["-I", "-c", Self.script, base, RevenueCatV2Fixture.project, RevenueCatV2Fixture.secret], timeout: 300)
            #expect(finished.status == 0, "\(finished.errorText)\n\(finished.outputText)")
            let report = try #require(try JSONSerialization.jsonObject(with: finished.output) as? [String: Any], "\(finished.outputText)")
            let routes = try #require(report["routes"] as? [String])
            // Every read route of the client, and more than one page of every list that can have one.
            #expect(Set(routes) == Self.readRoutes, "\(Set(routes).symmetricDifference(Self.readRoutes).sorted())")
            #expect((report["customerPages"] as? Int ?? 0) >= 4)
            #expect(report["customers"] as? [String] == RevenueCatV2Fixture.customers)
            #expect((report["calls"] as? Int ?? 0) > 60)
        }
    }

    /// The client's GET operations (its `api` modules), each of which the script must call.
    static let readRoutes: Set<String> = [
        "list_projects", "list_apps", "get_app", "list_customers", "get_customer", "list_customer_active_entitlements",
        "list_customer_aliases", "list_customer_attributes", "list_subscriptions", "list_purchases", "list_customer_invoices",
        "get_subscription", "list_subscription_entitlements", "get_purchase", "list_purchase_entitlements", "list_entitlements",
        "get_entitlement", "get_products_from_entitlement", "list_products", "get_product", "list_offerings", "get_offering",
        "list_packages", "get_package", "get_products_from_package", "get_overview_metrics",
    ]

    /// Drives the generated client against the server (argv: base URL, project id, secret key);
    /// exits non-zero unless every answer has status 200 and parses with the client's model, and
    /// every paged list gives, page by page, exactly the items of one large page. Prints a JSON
    /// report.
    static let script = #"""
        import json, sys, urllib.parse
        from revenuecat_client import AuthenticatedClient
        from revenuecat_client.types import UNSET
        from revenuecat_client.api.project import list_projects
        from revenuecat_client.api.app import list_apps, get_app
        from revenuecat_client.api.customer import (list_customers, get_customer, list_customer_active_entitlements,
            list_customer_aliases, list_customer_attributes, list_subscriptions, list_purchases)
        from revenuecat_client.api.invoice import list_customer_invoices
        from revenuecat_client.api.subscription import get_subscription, list_subscription_entitlements
        from revenuecat_client.api.purchase import get_purchase, list_purchase_entitlements
        from revenuecat_client.api.entitlement import list_entitlements, get_entitlement, get_products_from_entitlement
        from revenuecat_client.api.product import list_products, get_product
        from revenuecat_client.api.offering import list_offerings, get_offering
        from revenuecat_client.api.package import list_packages, get_package, get_products_from_package
        from revenuecat_client.api.charts_metrics import get_overview_metrics
        from revenuecat_client import models as m
        from revenuecat_client.models.get_customer_expand_item import GetCustomerExpandItem
        from revenuecat_client.models.get_offering_expand_item import GetOfferingExpandItem
        from revenuecat_client.models.list_offerings_expand_item import ListOfferingsExpandItem
        from revenuecat_client.models.list_entitlements_expand_item import ListEntitlementsExpandItem
        from revenuecat_client.models.get_entitlement_expand_item import GetEntitlementExpandItem
        from revenuecat_client.models.list_packages_expand_item import ListPackagesExpandItem
        from revenuecat_client.models.get_package_expand_item import GetPackageExpandItem
        from revenuecat_client.models.list_products_expand_item import ListProductsExpandItem
        from revenuecat_client.models.get_product_expand_item import GetProductExpandItem

        base, project, key = sys.argv[1:4]
        client = AuthenticatedClient(base_url=base, token=key, raise_on_unexpected_status=True)
        routes, calls = set(), 0

        def times(value, where):
            # v2 times are integers of milliseconds (or null), never text or fractions.
            if isinstance(value, dict):
                for name, inner in value.items():
                    if name.endswith("_at") and not (inner is None or (isinstance(inner, int) and not isinstance(inner, bool))):
                        raise AssertionError(f"{where}: {name} is {inner!r}")
                    times(inner, where)
            elif isinstance(value, list):
                for inner in value:
                    times(inner, where)

        def call(operation, model, **arguments):
            global calls
            calls += 1
            routes.add(operation.__name__.rsplit(".", 1)[-1])
            response = operation.sync_detailed(project_id=project, client=client, **arguments) if operation is not list_projects \
                else operation.sync_detailed(client=client, **arguments)
            if response.status_code != 200:
                raise AssertionError(f"{operation.__name__} {arguments}: {response.status_code} {response.content[:400]!r}")
            if not isinstance(response.parsed, model):
                raise AssertionError(f"{operation.__name__}: parsed as {type(response.parsed)}, not {model}")
            body = json.loads(response.content)
            model.from_dict(body)  # again, to be sure the answer itself parses
            times(body, operation.__name__)
            return response.parsed

        def key_of(item):
            for name in ("id", "name", "entitlement_id"):
                if hasattr(item, name):
                    return getattr(item, name)
            return item.product.id

        def pages(operation, model, **arguments):
            """Every item, two a page, following next_page; checked against one page of 1000."""
            items, after, count = [], UNSET, 0
            while True:
                page = call(operation, model, limit=2, starting_after=after, **arguments)
                if page.object_.value != "list" or not page.url.startswith("/revenuecat/v2/"):
                    raise AssertionError(f"{operation.__name__}: {page.object_} {page.url}")
                items += page.items
                count += 1
                if page.next_page is None:
                    break
                query = urllib.parse.parse_qs(urllib.parse.urlparse(page.next_page).query)
                after = query["starting_after"][0]
                if count > 50:
                    raise AssertionError(f"{operation.__name__}: no end")
            whole = call(operation, model, limit=1000, **arguments)
            ids = [key_of(item) for item in items]
            if len(ids) != len(set(ids)) or ids != [key_of(item) for item in whole.items]:
                raise AssertionError(f"{operation.__name__}: pages {ids} but one page {[key_of(i) for i in whole.items]}")
            return items, count

        projects, _ = pages(list_projects, m.ProjectList)
        assert [p.id for p in projects] == [project], projects
        apps, _ = pages(list_apps, m.AppList)
        for app in apps:
            call(get_app, m.App, app_id=app.id)

        customers, customer_pages = pages(list_customers, m.CustomerList)
        subscriptions, purchases = [], []
        for customer in customers:
            got = call(get_customer, m.Customer, customer_id=customer.id, expand=[GetCustomerExpandItem.ATTRIBUTES])
            assert got.id == customer.id
            pages(list_customer_active_entitlements, m.CustomerActiveEntitlementList, customer_id=customer.id)
            pages(list_customer_aliases, m.CustomerAliasList, customer_id=customer.id)
            pages(list_customer_attributes, m.CustomerAttributeList, customer_id=customer.id)
            pages(list_customer_invoices, m.CustomerInvoicesList, customer_id=customer.id)
            subscriptions += pages(list_subscriptions, m.SubscriptionList, customer_id=customer.id)[0]
            purchases += pages(list_purchases, m.PurchaseList, customer_id=customer.id)[0]
        assert len(subscriptions) >= 5 and len(purchases) >= 3, (len(subscriptions), len(purchases))
        for subscription in subscriptions:
            got = call(get_subscription, m.Subscription, subscription_id=subscription.id)
            assert got.id == subscription.id and got.status == subscription.status
            pages(list_subscription_entitlements, m.EntitlementList, subscription_id=subscription.id)
        for purchase in purchases:
            got = call(get_purchase, m.Purchase, purchase_id=purchase.id)
            assert got.id == purchase.id
            pages(list_purchase_entitlements, m.EntitlementList, purchase_id=purchase.id)
        attributes = call(list_customer_attributes, m.CustomerAttributeList, customer_id="frank")
        assert [a.name for a in attributes.items] == ["$displayName", "$email", "plan"], attributes

        entitlements, _ = pages(list_entitlements, m.EntitlementList, expand=[ListEntitlementsExpandItem.ITEMS_PRODUCT])
        for entitlement in entitlements:
            call(get_entitlement, m.Entitlement, entitlement_id=entitlement.id, expand=[GetEntitlementExpandItem.PRODUCT])
            pages(get_products_from_entitlement, m.ProductsFromEntitlementList, entitlement_id=entitlement.id)
        products, product_pages = pages(list_products, m.ProductList, expand=[ListProductsExpandItem.ITEMS_APP])
        assert product_pages >= 2
        for product in products:
            call(get_product, m.Product, product_id=product.id, expand=[GetProductExpandItem.APP])
        offerings, _ = pages(list_offerings, m.OfferingList, expand=[ListOfferingsExpandItem.ITEMS_PACKAGE_PRODUCT])
        assert sum(1 for o in offerings if o.is_current) == 1, offerings
        for offering in offerings:
            got = call(get_offering, m.Offering, offering_id=offering.id, expand=[GetOfferingExpandItem.PACKAGE_PRODUCT])
            assert len(got.packages.items) == len(offering.packages.items)
            for package in pages(list_packages, m.PackageList, offering_id=offering.id, expand=[ListPackagesExpandItem.ITEMS_PRODUCT])[0]:
                call(get_package, m.Package, package_id=package.id, expand=[GetPackageExpandItem.PRODUCT])
                pages(get_products_from_package, m.ProductsFromPackageList, package_id=package.id)

        overview = call(get_overview_metrics, m.OverviewMetrics)
        figures = {metric.id: metric.value for metric in overview.metrics}
        assert set(figures) == {"active_subscriptions", "active_trials", "mrr", "revenue"}, figures
        sandbox = client.get_httpx_client().get(f"/projects/{project}/metrics/overview", params={"environment": "sandbox"})
        figures = {metric.id: metric.value for metric in m.OverviewMetrics.from_dict(sandbox.json()).metrics}
        assert figures["active_subscriptions"] >= 1 and figures["active_trials"] == 1 and figures["revenue"] > 0, figures

        missing = client.get_httpx_client().get(f"/projects/{project}/customers/nobody")
        error = m.Error.from_dict(missing.json())
        assert missing.status_code == 404 and error.type.value == "resource_missing", missing.text
        bad = client.get_httpx_client().get(f"/projects/{project}/customers", params={"limit": 0})
        error = m.Error.from_dict(bad.json())
        assert bad.status_code == 400 and error.type.value == "parameter_error" and error.param == "limit", bad.text

        print(json.dumps({"routes": sorted(routes), "calls": calls, "customerPages": customer_pages,
                          "customers": [c.id for c in customers]}))
        """#
}
