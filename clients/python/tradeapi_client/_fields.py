"""Field names, order and kinds of the MetaTrader5 package's records. GENERATED once from
src/terminal/records.ts (OrderSendResult from mt5-reference section 4); tests/test_units.py checks
them against the MetaTrader5 stand-in.

Kinds: i int, f float, b bool, s str, r a nested TradeRequest."""

FIELDS = {
    'AccountInfo': (
        ('login', 'i'), ('trade_mode', 'i'), ('leverage', 'i'), ('limit_orders', 'i'),
        ('margin_so_mode', 'i'), ('trade_allowed', 'b'), ('trade_expert', 'b'),
        ('margin_mode', 'i'), ('currency_digits', 'i'), ('fifo_close', 'b'), ('balance', 'f'),
        ('credit', 'f'), ('profit', 'f'), ('equity', 'f'), ('margin', 'f'), ('margin_free', 'f'),
        ('margin_level', 'f'), ('margin_so_call', 'f'), ('margin_so_so', 'f'),
        ('margin_initial', 'f'), ('margin_maintenance', 'f'), ('assets', 'f'), ('liabilities', 'f'),
        ('commission_blocked', 'f'), ('name', 's'), ('server', 's'), ('currency', 's'),
        ('company', 's'),
    ),
    'TerminalInfo': (
        ('community_account', 'b'), ('community_connection', 'b'), ('connected', 'b'),
        ('dlls_allowed', 'b'), ('trade_allowed', 'b'), ('tradeapi_disabled', 'b'),
        ('email_enabled', 'b'), ('ftp_enabled', 'b'), ('notifications_enabled', 'b'), ('mqid', 'b'),
        ('build', 'i'), ('maxbars', 'i'), ('codepage', 'i'), ('ping_last', 'i'),
        ('community_balance', 'f'), ('retransmission', 'f'), ('company', 's'), ('name', 's'),
        ('language', 's'), ('path', 's'), ('data_path', 's'), ('commondata_path', 's'),
    ),
    'SymbolInfo': (
        ('custom', 'b'), ('chart_mode', 'i'), ('select', 'b'), ('visible', 'b'),
        ('session_deals', 'i'), ('session_buy_orders', 'i'), ('session_sell_orders', 'i'),
        ('volume', 'i'), ('volumehigh', 'i'), ('volumelow', 'i'), ('time', 'i'), ('digits', 'i'),
        ('spread', 'i'), ('spread_float', 'b'), ('ticks_bookdepth', 'i'), ('trade_calc_mode', 'i'),
        ('trade_mode', 'i'), ('start_time', 'i'), ('expiration_time', 'i'),
        ('trade_stops_level', 'i'), ('trade_freeze_level', 'i'), ('trade_exemode', 'i'),
        ('swap_mode', 'i'), ('swap_rollover3days', 'i'), ('margin_hedged_use_leg', 'b'),
        ('expiration_mode', 'i'), ('filling_mode', 'i'), ('order_mode', 'i'),
        ('order_gtc_mode', 'i'), ('option_mode', 'i'), ('option_right', 'i'), ('bid', 'f'),
        ('bidhigh', 'f'), ('bidlow', 'f'), ('ask', 'f'), ('askhigh', 'f'), ('asklow', 'f'),
        ('last', 'f'), ('lasthigh', 'f'), ('lastlow', 'f'), ('volume_real', 'f'),
        ('volumehigh_real', 'f'), ('volumelow_real', 'f'), ('option_strike', 'f'), ('point', 'f'),
        ('trade_tick_value', 'f'), ('trade_tick_value_profit', 'f'), ('trade_tick_value_loss', 'f'),
        ('trade_tick_size', 'f'), ('trade_contract_size', 'f'), ('trade_accrued_interest', 'f'),
        ('trade_face_value', 'f'), ('trade_liquidity_rate', 'f'), ('volume_min', 'f'),
        ('volume_max', 'f'), ('volume_step', 'f'), ('volume_limit', 'f'), ('swap_long', 'f'),
        ('swap_short', 'f'), ('margin_initial', 'f'), ('margin_maintenance', 'f'),
        ('session_volume', 'f'), ('session_turnover', 'f'), ('session_interest', 'f'),
        ('session_buy_orders_volume', 'f'), ('session_sell_orders_volume', 'f'),
        ('session_open', 'f'), ('session_close', 'f'), ('session_aw', 'f'),
        ('session_price_settlement', 'f'), ('session_price_limit_min', 'f'),
        ('session_price_limit_max', 'f'), ('margin_hedged', 'f'), ('price_change', 'f'),
        ('price_volatility', 'f'), ('price_theoretical', 'f'), ('price_greeks_delta', 'f'),
        ('price_greeks_theta', 'f'), ('price_greeks_gamma', 'f'), ('price_greeks_vega', 'f'),
        ('price_greeks_rho', 'f'), ('price_greeks_omega', 'f'), ('price_sensitivity', 'f'),
        ('basis', 's'), ('category', 's'), ('currency_base', 's'), ('currency_profit', 's'),
        ('currency_margin', 's'), ('bank', 's'), ('description', 's'), ('exchange', 's'),
        ('formula', 's'), ('isin', 's'), ('name', 's'), ('page', 's'), ('path', 's'),
    ),
    'Tick': (
        ('time', 'i'), ('bid', 'f'), ('ask', 'f'), ('last', 'f'), ('volume', 'i'),
        ('time_msc', 'i'), ('flags', 'i'), ('volume_real', 'f'),
    ),
    'BookInfo': (
        ('type', 'i'), ('price', 'f'), ('volume', 'i'), ('volume_dbl', 'f'),
    ),
    'TradeOrder': (
        ('ticket', 'i'), ('time_setup', 'i'), ('time_setup_msc', 'i'), ('time_done', 'i'),
        ('time_done_msc', 'i'), ('time_expiration', 'i'), ('type', 'i'), ('type_time', 'i'),
        ('type_filling', 'i'), ('state', 'i'), ('magic', 'i'), ('position_id', 'i'),
        ('position_by_id', 'i'), ('reason', 'i'), ('volume_initial', 'f'), ('volume_current', 'f'),
        ('price_open', 'f'), ('sl', 'f'), ('tp', 'f'), ('price_current', 'f'),
        ('price_stoplimit', 'f'), ('symbol', 's'), ('comment', 's'), ('external_id', 's'),
    ),
    'TradePosition': (
        ('ticket', 'i'), ('time', 'i'), ('time_msc', 'i'), ('time_update', 'i'),
        ('time_update_msc', 'i'), ('type', 'i'), ('magic', 'i'), ('identifier', 'i'),
        ('reason', 'i'), ('volume', 'f'), ('price_open', 'f'), ('sl', 'f'), ('tp', 'f'),
        ('price_current', 'f'), ('swap', 'f'), ('profit', 'f'), ('symbol', 's'), ('comment', 's'),
        ('external_id', 's'),
    ),
    'TradeDeal': (
        ('ticket', 'i'), ('order', 'i'), ('time', 'i'), ('time_msc', 'i'), ('type', 'i'),
        ('entry', 'i'), ('magic', 'i'), ('position_id', 'i'), ('reason', 'i'), ('volume', 'f'),
        ('price', 'f'), ('commission', 'f'), ('swap', 'f'), ('profit', 'f'), ('fee', 'f'),
        ('symbol', 's'), ('comment', 's'), ('external_id', 's'),
    ),
    'TradeRequest': (
        ('action', 'i'), ('magic', 'i'), ('order', 'i'), ('symbol', 's'), ('volume', 'f'),
        ('price', 'f'), ('stoplimit', 'f'), ('sl', 'f'), ('tp', 'f'), ('deviation', 'i'),
        ('type', 'i'), ('type_filling', 'i'), ('type_time', 'i'), ('expiration', 'i'),
        ('comment', 's'), ('position', 'i'), ('position_by', 'i'),
    ),
    'OrderCheckResult': (
        ('retcode', 'i'), ('balance', 'f'), ('equity', 'f'), ('profit', 'f'), ('margin', 'f'),
        ('margin_free', 'f'), ('margin_level', 'f'), ('comment', 's'), ('request', 'r'),
    ),
    'OrderSendResult': (
        ('retcode', 'i'), ('deal', 'i'), ('order', 'i'), ('volume', 'f'), ('price', 'f'),
        ('bid', 'f'), ('ask', 'f'), ('comment', 's'), ('request_id', 'i'),
        ('retcode_external', 'i'), ('request', 'r'),
    ),
}
