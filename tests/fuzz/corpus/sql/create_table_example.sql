CREATE TABLE example_tbl1 (
    order_id bigint NOT NULL COMMENT "Order ID",
    pay_dt date NOT NULL COMMENT "Payment date",
    customer_name varchar(26) NULL COMMENT "Customer name",
    nationality varchar(26) NULL COMMENT "Nationality",
    price double NULL COMMENT "Price")
ENGINE=OLAP DUPLICATE KEY (order_id, pay_dt) DISTRIBUTED BY HASH(order_id);
