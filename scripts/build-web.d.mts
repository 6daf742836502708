export declare const webDist: string;
export declare function webFingerprint(): string;
export declare function isWebFresh(): boolean;
export declare function buildWeb(options?: { onlyIfStale?: boolean; log?: (line: string) => void }): Promise<void>;
export declare function ensureWebBuild(): Promise<void>;
