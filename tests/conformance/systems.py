"""The 8 real systems whose Spider dev predictions and official labels are in ../shared/data."""

SYSTEMS = (
    "c3sql_gpt35",
    "chatgpt_zeroshot_liu2023",
    "dailsql_gpt4",
    "dinsql_gpt4",
    "graphix_t5_daildir",
    "nl2sql360_Llama2-7B",
    "nl2sql360_RESDSQL_3B",
    "spider_repo_pred_example",
)
