/// The API's OpenAPI 3 description, served at `/openapi.json`, written by hand beside the
/// routes; a test checks that every route is described and that the document is valid JSON.
enum OpenAPIDocument {
    static let json = #"""
{
 "components": {
  "responses": {
   "Error": {
    "content": {
     "application/json": {
      "schema": {
       "$ref": "#/components/schemas/Error"
      }
     }
    },
    "description": "An error"
   }
  },
  "schemas": {
   "Customer": {
    "properties": {
     "consumables": {
      "items": {
       "type": "object"
      },
      "type": "array"
     },
     "customerId": {
      "type": "string"
     },
     "eligibility": {
      "additionalProperties": {
       "type": "object"
      },
      "type": "object"
     },
     "entitlements": {
      "items": {
       "type": "object"
      },
      "type": "array"
     },
     "instant": {
      "format": "date-time",
      "type": "string"
     },
     "nonConsumables": {
      "items": {
       "type": "object"
      },
      "type": "array"
     },
     "originalTransactionIds": {
      "items": {
       "type": "string"
      },
      "type": "array"
     },
     "subscriptions": {
      "items": {
       "$ref": "#/components/schemas/Subscription"
      },
      "type": "array"
     }
    },
    "required": [
     "customerId",
     "instant",
     "entitlements",
     "subscriptions",
     "nonConsumables",
     "consumables",
     "eligibility",
     "originalTransactionIds"
    ],
    "type": "object"
   },
   "Error": {
    "properties": {
     "error": {
      "properties": {
       "code": {
        "type": "string"
       },
       "message": {
        "type": "string"
       }
      },
      "required": [
       "code",
       "message"
      ],
      "type": "object"
     }
    },
    "required": [
     "error"
    ],
    "type": "object"
   },
   "Event": {
    "properties": {
     "details": {
      "additionalProperties": {
       "type": "string"
      },
      "type": "object"
     },
     "id": {
      "type": "integer"
     },
     "occurredAt": {
      "format": "date-time",
      "type": "string"
     },
     "originalTransactionId": {
      "type": "string"
     },
     "type": {
      "type": "string"
     }
    },
    "required": [
     "type",
     "occurredAt",
     "details"
    ],
    "type": "object"
   },
   "EventList": {
    "properties": {
     "events": {
      "items": {
       "$ref": "#/components/schemas/Event"
      },
      "type": "array"
     }
    },
    "required": [
     "events"
    ],
    "type": "object"
   },
   "GrantRequest": {
    "properties": {
     "action": {
      "enum": [
       "grant",
       "revoke"
      ],
      "type": "string"
     },
     "endDate": {
      "format": "date-time",
      "type": "string"
     },
     "grantId": {
      "type": "string"
     },
     "productId": {
      "type": "string"
     },
     "reason": {
      "type": "string"
     },
     "startDate": {
      "format": "date-time",
      "type": "string"
     },
     "transactionId": {
      "type": "string"
     }
    },
    "required": [
     "reason"
    ],
    "type": "object"
   },
   "Health": {
    "properties": {
     "database": {
      "type": "string"
     },
     "pendingNotifications": {
      "type": "string"
     },
     "status": {
      "type": "string"
     }
    },
    "required": [
     "status"
    ],
    "type": "object"
   },
   "Notification": {
    "properties": {
     "body": {
      "type": "string"
     },
     "environment": {
      "type": "string"
     },
     "failureReason": {
      "type": "string"
     },
     "id": {
      "type": "integer"
     },
     "notificationType": {
      "type": "string"
     },
     "notificationUUID": {
      "type": "string"
     },
     "originalTransactionId": {
      "type": "string"
     },
     "receivedAt": {
      "format": "date-time",
      "type": "string"
     },
     "signedDate": {
      "format": "date-time",
      "type": "string"
     },
     "state": {
      "type": "string"
     },
     "subtype": {
      "type": "string"
     },
     "version": {
      "type": "integer"
     }
    },
    "required": [
     "version",
     "receivedAt",
     "state",
     "body"
    ],
    "type": "object"
   },
   "NotificationBody": {
    "description": "V2: {signedPayload}; V1: Apple's JSON with notification_type.",
    "properties": {
     "notification_type": {
      "type": "string"
     },
     "signedPayload": {
      "type": "string"
     }
    },
    "type": "object"
   },
   "NotificationList": {
    "properties": {
     "notifications": {
      "items": {
       "$ref": "#/components/schemas/Notification"
      },
      "type": "array"
     }
    },
    "required": [
     "notifications"
    ],
    "type": "object"
   },
   "NotificationReceipt": {
    "properties": {
     "duplicate": {
      "type": "boolean"
     },
     "id": {
      "type": "integer"
     },
     "received": {
      "type": "boolean"
     }
    },
    "required": [
     "received",
     "id",
     "duplicate"
    ],
    "type": "object"
   },
   "PurchaseRequest": {
    "description": "Exactly one of signedTransaction (StoreKit 2 JWS) or receipt (base64 app receipt).",
    "properties": {
     "receipt": {
      "type": "string"
     },
     "signedTransaction": {
      "type": "string"
     }
    },
    "type": "object"
   },
   "Subscription": {
    "additionalProperties": true,
    "properties": {
     "expiresDate": {
      "format": "date-time",
      "type": "string"
     },
     "gracePeriodExpiresDate": {
      "format": "date-time",
      "type": "string"
     },
     "originalTransactionId": {
      "type": "string"
     },
     "productId": {
      "type": "string"
     },
     "status": {
      "enum": [
       "active",
       "expired",
       "billingRetry",
       "gracePeriod",
       "revoked"
      ],
      "type": "string"
     },
     "transactionId": {
      "type": "string"
     },
     "willAutoRenew": {
      "type": "boolean"
     }
    },
    "required": [
     "originalTransactionId",
     "status",
     "productId"
    ],
    "type": "object"
   },
   "VerifyReceiptRequest": {
    "properties": {
     "exclude-old-transactions": {
      "type": "boolean"
     },
     "password": {
      "type": "string"
     },
     "receipt-data": {
      "type": "string"
     }
    },
    "required": [
     "receipt-data"
    ],
    "type": "object"
   },
   "VerifyReceiptResponse": {
    "additionalProperties": true,
    "properties": {
     "environment": {
      "type": "string"
     },
     "receipt": {
      "type": "object"
     },
     "status": {
      "type": "integer"
     }
    },
    "required": [
     "status"
    ],
    "type": "object"
   }
  },
  "securitySchemes": {
   "bearer": {
    "scheme": "bearer",
    "type": "http"
   }
  }
 },
 "info": {
  "description": "A self-hosted subscription backend for App Store apps. Every error is {\"error\": {\"code\", \"message\"}}.",
  "title": "Storekeeper",
  "version": "1.0.0"
 },
 "openapi": "3.0.3",
 "paths": {
  "/health": {
   "get": {
    "operationId": "health",
    "responses": {
     "200": {
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Health"
        }
       }
      },
      "description": "Healthy"
     },
     "503": {
      "$ref": "#/components/responses/Error"
     }
    },
    "security": []
   }
  },
  "/metrics": {
   "get": {
    "operationId": "metrics",
    "responses": {
     "200": {
      "content": {
       "text/plain": {
        "schema": {
         "type": "string"
        }
       }
      },
      "description": "Prometheus text"
     }
    },
    "security": []
   }
  },
  "/openapi.json": {
   "get": {
    "operationId": "openapi",
    "responses": {
     "200": {
      "content": {
       "application/json": {
        "schema": {
         "type": "object"
        }
       }
      },
      "description": "This document"
     }
    },
    "security": []
   }
  },
  "/v1/apps/{appId}/customers/{customerId}": {
   "get": {
    "operationId": "customer",
    "parameters": [
     {
      "in": "path",
      "name": "appId",
      "required": true,
      "schema": {
       "maxLength": 128,
       "minLength": 1,
       "pattern": "^[A-Za-z0-9._-]+$",
       "type": "string"
      }
     },
     {
      "in": "path",
      "name": "customerId",
      "required": true,
      "schema": {
       "maxLength": 128,
       "minLength": 1,
       "pattern": "^[A-Za-z0-9._-]+$",
       "type": "string"
      }
     }
    ],
    "responses": {
     "200": {
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Customer"
        }
       }
      },
      "description": "OK"
     },
     "400": {
      "$ref": "#/components/responses/Error"
     },
     "401": {
      "$ref": "#/components/responses/Error"
     },
     "404": {
      "$ref": "#/components/responses/Error"
     }
    }
   }
  },
  "/v1/apps/{appId}/customers/{customerId}/events": {
   "get": {
    "operationId": "customerEvents",
    "parameters": [
     {
      "in": "path",
      "name": "appId",
      "required": true,
      "schema": {
       "maxLength": 128,
       "minLength": 1,
       "pattern": "^[A-Za-z0-9._-]+$",
       "type": "string"
      }
     },
     {
      "in": "path",
      "name": "customerId",
      "required": true,
      "schema": {
       "maxLength": 128,
       "minLength": 1,
       "pattern": "^[A-Za-z0-9._-]+$",
       "type": "string"
      }
     },
     {
      "in": "query",
      "name": "limit",
      "required": false,
      "schema": {
       "maximum": 1000,
       "minimum": 1,
       "type": "integer"
      }
     }
    ],
    "responses": {
     "200": {
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/EventList"
        }
       }
      },
      "description": "OK"
     },
     "400": {
      "$ref": "#/components/responses/Error"
     },
     "401": {
      "$ref": "#/components/responses/Error"
     },
     "404": {
      "$ref": "#/components/responses/Error"
     }
    }
   }
  },
  "/v1/apps/{appId}/customers/{customerId}/grants": {
   "post": {
    "operationId": "postGrant",
    "parameters": [
     {
      "in": "path",
      "name": "appId",
      "required": true,
      "schema": {
       "maxLength": 128,
       "minLength": 1,
       "pattern": "^[A-Za-z0-9._-]+$",
       "type": "string"
      }
     },
     {
      "in": "path",
      "name": "customerId",
      "required": true,
      "schema": {
       "maxLength": 128,
       "minLength": 1,
       "pattern": "^[A-Za-z0-9._-]+$",
       "type": "string"
      }
     }
    ],
    "requestBody": {
     "content": {
      "application/json": {
       "schema": {
        "$ref": "#/components/schemas/GrantRequest"
       }
      }
     },
     "required": true
    },
    "responses": {
     "201": {
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Customer"
        }
       }
      },
      "description": "OK"
     },
     "400": {
      "$ref": "#/components/responses/Error"
     },
     "401": {
      "$ref": "#/components/responses/Error"
     },
     "403": {
      "$ref": "#/components/responses/Error"
     },
     "404": {
      "$ref": "#/components/responses/Error"
     },
     "413": {
      "$ref": "#/components/responses/Error"
     },
     "422": {
      "$ref": "#/components/responses/Error"
     }
    }
   }
  },
  "/v1/apps/{appId}/customers/{customerId}/purchases": {
   "post": {
    "operationId": "postPurchase",
    "parameters": [
     {
      "in": "path",
      "name": "appId",
      "required": true,
      "schema": {
       "maxLength": 128,
       "minLength": 1,
       "pattern": "^[A-Za-z0-9._-]+$",
       "type": "string"
      }
     },
     {
      "in": "path",
      "name": "customerId",
      "required": true,
      "schema": {
       "maxLength": 128,
       "minLength": 1,
       "pattern": "^[A-Za-z0-9._-]+$",
       "type": "string"
      }
     }
    ],
    "requestBody": {
     "content": {
      "application/json": {
       "schema": {
        "$ref": "#/components/schemas/PurchaseRequest"
       }
      }
     },
     "required": true
    },
    "responses": {
     "200": {
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Customer"
        }
       }
      },
      "description": "OK"
     },
     "400": {
      "$ref": "#/components/responses/Error"
     },
     "401": {
      "$ref": "#/components/responses/Error"
     },
     "404": {
      "$ref": "#/components/responses/Error"
     },
     "409": {
      "$ref": "#/components/responses/Error"
     },
     "413": {
      "$ref": "#/components/responses/Error"
     },
     "422": {
      "$ref": "#/components/responses/Error"
     }
    }
   }
  },
  "/v1/apps/{appId}/notifications": {
   "get": {
    "operationId": "listNotifications",
    "parameters": [
     {
      "in": "path",
      "name": "appId",
      "required": true,
      "schema": {
       "maxLength": 128,
       "minLength": 1,
       "pattern": "^[A-Za-z0-9._-]+$",
       "type": "string"
      }
     },
     {
      "in": "query",
      "name": "originalTransactionId",
      "required": false,
      "schema": {
       "type": "string"
      }
     },
     {
      "in": "query",
      "name": "type",
      "required": false,
      "schema": {
       "type": "string"
      }
     },
     {
      "in": "query",
      "name": "state",
      "required": false,
      "schema": {
       "enum": [
        "pending",
        "processed",
        "duplicate",
        "rejected"
       ],
       "type": "string"
      }
     },
     {
      "in": "query",
      "name": "limit",
      "required": false,
      "schema": {
       "maximum": 1000,
       "minimum": 1,
       "type": "integer"
      }
     }
    ],
    "responses": {
     "200": {
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/NotificationList"
        }
       }
      },
      "description": "OK"
     },
     "400": {
      "$ref": "#/components/responses/Error"
     },
     "401": {
      "$ref": "#/components/responses/Error"
     },
     "404": {
      "$ref": "#/components/responses/Error"
     }
    }
   },
   "post": {
    "description": "App Store Server Notifications V1 or V2. Stored raw before 200.",
    "operationId": "receiveNotification",
    "parameters": [
     {
      "in": "path",
      "name": "appId",
      "required": true,
      "schema": {
       "maxLength": 128,
       "minLength": 1,
       "pattern": "^[A-Za-z0-9._-]+$",
       "type": "string"
      }
     }
    ],
    "requestBody": {
     "content": {
      "application/json": {
       "schema": {
        "$ref": "#/components/schemas/NotificationBody"
       }
      }
     },
     "required": true
    },
    "responses": {
     "200": {
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/NotificationReceipt"
        }
       }
      },
      "description": "Stored"
     },
     "400": {
      "$ref": "#/components/responses/Error"
     },
     "404": {
      "$ref": "#/components/responses/Error"
     },
     "413": {
      "$ref": "#/components/responses/Error"
     }
    },
    "security": []
   }
  },
  "/v1/apps/{appId}/subscriptions/{originalTransactionId}": {
   "get": {
    "operationId": "subscription",
    "parameters": [
     {
      "in": "path",
      "name": "appId",
      "required": true,
      "schema": {
       "maxLength": 128,
       "minLength": 1,
       "pattern": "^[A-Za-z0-9._-]+$",
       "type": "string"
      }
     },
     {
      "in": "path",
      "name": "originalTransactionId",
      "required": true,
      "schema": {
       "maxLength": 128,
       "minLength": 1,
       "pattern": "^[A-Za-z0-9._-]+$",
       "type": "string"
      }
     }
    ],
    "responses": {
     "200": {
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Subscription"
        }
       }
      },
      "description": "OK"
     },
     "400": {
      "$ref": "#/components/responses/Error"
     },
     "401": {
      "$ref": "#/components/responses/Error"
     },
     "404": {
      "$ref": "#/components/responses/Error"
     }
    }
   }
  },
  "/verifyReceipt": {
   "post": {
    "description": "Drop-in for Apple's deprecated endpoint: HTTP 200 with Apple's status codes.",
    "operationId": "verifyReceipt",
    "requestBody": {
     "content": {
      "application/json": {
       "schema": {
        "$ref": "#/components/schemas/VerifyReceiptRequest"
       }
      }
     },
     "required": true
    },
    "responses": {
     "200": {
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/VerifyReceiptResponse"
        }
       }
      },
      "description": "Apple's response shape"
     },
     "413": {
      "$ref": "#/components/responses/Error"
     }
    },
    "security": []
   }
  }
 },
 "security": [
  {
   "bearer": []
  }
 ],
 "servers": [
  {
   "url": "/"
  }
 ]
}
"""#
}
