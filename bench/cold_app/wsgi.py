"""The registry with its answer cache turned off: the cold rows' server (bench/cold.py).

A cold row cycles through distinct requests (every skill, every page), but at 1,000 skills
they all fit the answer cache (mcpapi.answer_cache: 2048 answers), so after the first few
seconds a cycling run would time kept answers again. With nothing kept, every request is
answered from the snapshot's index as a request never seen before is: the cost a cache miss
pays. Everything else (the index, the search caches, the blob cache) is the product's.
"""

from mcpapi.answer_cache import answers
from skillsite.wsgi import application

# Every answer is then larger than the bound, so put() returns without keeping it.
answers.max_entry_bytes = -1

__all__ = ["application"]
