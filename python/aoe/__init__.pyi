# Type hints for the aoe package.
import os
from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple, Union

ModelInput = Union[str, "os.PathLike[str]", bytes, bytearray, memoryview, Any]
ProgressCallback = Callable[[str, int, int, str], None]

api_version: Tuple[int, int]

class Error(Exception):
    code: int
    status: str
    result: Optional[Dict[str, Any]]
    def __init__(self, code: int, message: str, result: Optional[Dict[str, Any]] = ...) -> None: ...

class Session:
    def __init__(
        self,
        aoe_config: Optional[Mapping[str, Any]] = ...,
        *,
        progress: Union[bool, ProgressCallback] = ...,
        **options: Any,
    ) -> None: ...
    def tune(self, model: ModelInput, mode: Optional[str] = ..., *, name: Optional[str] = ...) -> Dict[str, Any]: ...
    def cancel(self) -> None: ...
    @property
    def cancelled(self) -> bool: ...
    @property
    def result(self) -> Optional[Dict[str, Any]]: ...
    def bank_entries(self, signature: str, kind: str = ...) -> List[Dict[str, Any]]: ...
    def plugins(self) -> Dict[str, Any]: ...
