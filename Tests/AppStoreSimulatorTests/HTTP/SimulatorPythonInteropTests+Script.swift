extension SimulatorPythonInteropTests {
    /// The Python side: Apple's client with only `_base_url` changed, every call decoded by
    /// the library, every signed value verified by Apple's `SignedDataVerifier`.
    static let script = #"""
        import base64, json, sys, uuid, warnings
        from appstoreserverlibrary.api_client import AppStoreServerAPIClient, APIException, GetTransactionHistoryVersion
        from appstoreserverlibrary.models.Environment import Environment
        from appstoreserverlibrary.models.TransactionHistoryRequest import TransactionHistoryRequest
        from appstoreserverlibrary.models.NotificationHistoryRequest import NotificationHistoryRequest
        from appstoreserverlibrary.models.ExtendRenewalDateRequest import ExtendRenewalDateRequest
        from appstoreserverlibrary.models.ExtendReasonCode import ExtendReasonCode
        from appstoreserverlibrary.signed_data_verifier import SignedDataVerifier

        warnings.simplefilter("ignore")
        # The library waits 30 s for each answer; on a loaded machine (a CI build and tests on two
        # cores) the simulator can take longer, and what is checked here is what the answers hold.
        import requests
        _request = requests.request
        def patient_request(*args, **kwargs):
            kwargs["timeout"] = 300
            return _request(*args, **kwargs)
        requests.request = patient_request
        cfg = json.load(open(sys.argv[1]))
        environment = Environment(cfg["environment"])
        client = AppStoreServerAPIClient(cfg["key_pem"].encode(), cfg["key_id"], cfg["issuer_id"], cfg["bundle_id"], environment)
        client._base_url = cfg["base_url"].rstrip("/")
        verifier = SignedDataVerifier([base64.b64decode(cfg["root"])], False, environment, cfg["bundle_id"], int(cfg["app_apple_id"]))
        out = {"calls": [], "skipped": [], "notFound": [], "verified": {"transactions": 0, "renewals": 0, "notifications": 0, "appTransactions": 0}}

        def transaction(signed):
            decoded = verifier.verify_and_decode_signed_transaction(signed)
            out["verified"]["transactions"] += 1
            return decoded

        def notification(signed):
            decoded = verifier.verify_and_decode_notification(signed)
            out["verified"]["notifications"] += 1
            return decoded

        def call(name):
            out["calls"].append(name)
            return getattr(client, name)

        statuses = call("get_all_subscription_statuses")(cfg["subscription"])
        out["statusGroups"] = [group.subscriptionGroupIdentifier for group in statuses.data]
        for group in statuses.data:
            for item in group.lastTransactions:
                transaction(item.signedTransactionInfo)
                verifier.verify_and_decode_renewal_info(item.signedRenewalInfo)
                out["verified"]["renewals"] += 1

        transaction(call("get_transaction_info")(cfg["latest"]).signedTransactionInfo)

        ids, revision, pages = [], None, 0
        while True:
            page = call("get_transaction_history")(cfg["latest"], revision, TransactionHistoryRequest(), GetTransactionHistoryVersion.V2)
            pages += 1
            ids += [transaction(signed).transactionId for signed in page.signedTransactions]
            revision = page.revision
            if not page.hasMore or pages > 10:
                break
        out["historyIds"], out["historyPages"] = ids, pages

        refunds = call("get_refund_history")(cfg["latest"], None)
        out["refundIds"] = [transaction(signed).transactionId for signed in refunds.signedTransactions]

        count, token, pages = 0, None, 0
        request = NotificationHistoryRequest(startDate=int(cfg["start_ms"]), endDate=int(cfg["end_ms"]))
        while True:
            page = call("get_notification_history")(token, request)
            pages += 1
            for item in page.notificationHistory:
                notification(item.signedPayload)
                count += 1
            token = page.paginationToken
            if not page.hasMore or pages > 10:
                break
        out["notificationCount"], out["notificationPages"] = count, pages

        test_token = call("request_test_notification")().testNotificationToken
        test_status = call("get_test_notification_status")(test_token)
        out["testNotificationType"] = notification(test_status.signedPayload).rawNotificationType

        extended = call("extend_subscription_renewal_date")(cfg["subscription"], ExtendRenewalDateRequest(
            extendByDays=1, extendReasonCode=ExtendReasonCode.CUSTOMER_SATISFACTION, requestIdentifier=str(uuid.uuid4())))
        out["extendSuccess"] = bool(extended.success)

        order = call("look_up_order_id")("MKCOINS")
        out["orderStatus"] = int(order.rawStatus)
        for signed in order.signedTransactions:
            transaction(signed)

        if hasattr(client, "get_app_transaction_info"):
            app_transaction = verifier.verify_and_decode_app_transaction(call("get_app_transaction_info")(cfg["latest"]).signedAppTransactionInfo)
            out["verified"]["appTransactions"] += 1
            out["appTransactionId"] = app_transaction.appTransactionId
        else:
            out["skipped"].append("get_app_transaction_info")

        if hasattr(client, "set_app_account_token"):
            from appstoreserverlibrary.models.UpdateAppAccountTokenRequest import UpdateAppAccountTokenRequest
            call("set_app_account_token")(cfg["subscription"], UpdateAppAccountTokenRequest(appAccountToken="7e3fb20b-4cdb-47cc-936d-99d65f608138"))
        else:
            out["skipped"].append("set_app_account_token")

        if hasattr(client, "send_consumption_information"):
            from appstoreserverlibrary.models.ConsumptionRequest import ConsumptionRequest
            from appstoreserverlibrary.models.DeliveryStatus import DeliveryStatus
            call("send_consumption_information")(cfg["consumable"], ConsumptionRequest(
                customerConsented=True, deliveryStatus=DeliveryStatus.DELIVERED, sampleContentProvided=False, consumptionPercentage=50000))
        else:
            out["skipped"].append("send_consumption_information")
        if hasattr(client, "send_consumption_data"):
            from appstoreserverlibrary.models.ConsumptionRequestV1 import ConsumptionRequestV1
            from appstoreserverlibrary.models.ConsumptionStatus import ConsumptionStatus
            call("send_consumption_data")(cfg["consumable"], ConsumptionRequestV1(
                customerConsented=True, consumptionStatus=ConsumptionStatus.FULLY_CONSUMED, sampleContentProvided=False, appAccountToken=""))
        else:
            out["skipped"].append("send_consumption_data")

        try:
            client.get_transaction_info("999999")
        except APIException as error:
            out["notFound"] = [error.http_status_code, error.raw_api_error]

        print(json.dumps(out))
        """#
}
